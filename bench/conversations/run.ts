/**
 * Conversations bench: `npm run bench:conversations` (bench/README.md, "bench:conversations").
 *
 * The real app in a child process (bench/api/server.ts `channels`): a tenant, its user as the agent
 * of a queue destination, online through an open `GET /conversations/events` stream, a chat plan
 * that hands the web chat to the queue. A visitor opens the web chat, the agent takes it; then, one
 * message at a time, BENCH_MESSAGES messages each way:
 *   - agent → widget: the widget's long poll (`?after=<revision>&wait=25`) is waiting; from the
 *     agent's `POST /conversations/:id/messages` to the poll's answer holding the message;
 *   - customer → agent: from the widget's `POST …/messages` to the `conversation.message` event on
 *     the agent's stream.
 * p50/p99 per direction, and the server's CPU (user + system, /proc) ÷ messages. The floor: the
 * same exchange through a bare Fastify route that stores the message and answers a waiting long
 * poll or writes to an open SSE stream in the same process (floor.ts `startConversationsFloor`),
 * measured in the same run; app ÷ floor.
 * On PostgreSQL, two instances of one database: the agent's stream and messages on one, the widget
 * on the other (the message crosses through LISTEN/NOTIFY); CPU is both Node processes', not PostgreSQL's.
 * Environment:
 *   BENCH_MESSAGES=1000     measured messages each way (after BENCH_WARMUP_MESSAGES=50)
 *   BENCH_DIALECT=sqlite    sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_PIN=1             0: no CPU pinning
 *   BENCH_STRICT=0          1: exit 3 when a target FAILs (wrong answers always exit 1)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ConversationEvent, WebchatConversation } from '@voxplan/contracts';
import { readEventBlocks } from '../../apps/server/test/sse-blocks.ts';
import { BENCH_ADMIN } from '../api/protocol.ts';
import { apiCall } from '../lib/api-call.ts';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases, type Dialect, dialectsOf } from '../lib/dialects.ts';
import { envNumber } from '../lib/env.ts';
import { checkedJson } from '../lib/http-json.ts';
import { fmt, percentile, table } from '../lib/load.ts';
import { canPin, cpuCount, delay, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';

const dialects = dialectsOf(process.env.BENCH_DIALECT ?? 'sqlite');
const settings = {
  messages: envNumber('BENCH_MESSAGES', 1000),
  warmup: envNumber('BENCH_WARMUP_MESSAGES', 50),
  pin: process.env.BENCH_PIN !== '0',
  strict: process.env.BENCH_STRICT === '1',
};
/** The target: a message reaches the other side within 300 ms at the 99th percentile. */
const TARGET_P99_MS = 300;
/** Time given to a long poll to reach the server before the message it waits for is sent: the measure starts at the send either way. */
const POLL_SETTLE_MS = 10;

const serverScript = path.resolve(import.meta.dirname, '../api/server.ts');
const pinning = settings.pin && canPin();
const ORIGIN = 'https://shop.bench.example';

const failures: string[] = [];
function expectThat(ok: boolean, what: string): void {
  if (!ok && failures.length < 5) failures.push(what);
}

// ---------------------------------------------------------------------------------------------
// An event stream read as the console reads it, each event handed over as it arrives.

interface EventStream {
  close(): void;
}

async function openStream(url: string, headers: Record<string, string>, onEvent: (type: string, data: unknown) => void): Promise<EventStream> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.get(url, { agent: false, headers }, resolve);
    request.on('error', reject);
  });
  if (response.statusCode !== 200) throw new Error(`the event stream ${url} answered ${response.statusCode}`);
  readEventBlocks(response, (block) => {
    const type = /^event: (.+)$/m.exec(block)?.[1];
    const data = /^data: (.+)$/m.exec(block)?.[1];
    if (type && data) onEvent(type, JSON.parse(data));
  });
  return { close: () => response.destroy() };
}

// ---------------------------------------------------------------------------------------------
// The exchange, against the app or the floor

interface Exchange {
  name: string;
  /** The processes whose CPU the exchange costs. */
  servers: ServerChild[];
  /** The widget's revision the next poll waits after. */
  revision: number;
  agentSends(text: string): Promise<void>;
  /** The widget's long poll: the agent's texts in its answer, and the revision it answered. */
  poll(after: number): Promise<{ revision: number; agentTexts: string[] }>;
  customerSends(id: string, text: string): Promise<number>;
  /** Resolved when the agent's stream shows the customer's `text`. */
  agentHears(text: string): Promise<void>;
  close(): void;
}

/** Waiters for texts on the agent's stream, settled as the events arrive. */
function hearing() {
  const waiters = new Map<string, () => void>();
  const heard = new Set<string>();
  return {
    heard(text: string) {
      const waiter = waiters.get(text);
      if (waiter) {
        waiters.delete(text);
        waiter();
      } else heard.add(text);
    },
    wait(text: string): Promise<void> {
      if (heard.delete(text)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(text, resolve));
    },
  };
}

/** A chat plan that greets and hands the chat to the queue. */
function queuePlan(queueId: number) {
  const say = (text: string) => ({ voice_text: text, chat_text: text });
  const blocks: Array<[string, string, Record<string, unknown>]> = [
    ['start', 'start', {}],
    ['hello', 'play_message', say('Passing you to a person.')],
    ['agent', 'destination', { destination_id: queueId, timeout_s: 300 }],
    ['back', 'play_message', say('Back with the bot.')],
  ];
  const links: Array<[string, string, string]> = [
    ['start', 'next', 'hello'],
    ['hello', 'next', 'agent'],
    ['agent', 'answer', 'back'],
  ];
  return {
    settings: { session_timeout_min: 10, chat_text: 'Bye.', sync_with_voice_text: false, webhook: '' },
    nodes: blocks.map(([id, type, data], index) => ({ id, type, position: { x: index * 320, y: 0 }, data })),
    edges: links.map(([source, exit, target], index) => ({ id: `e${index + 1}`, source, source_exit: exit, target })),
  };
}

/** The set-up through the API (on `agentSide`; the widget on `customerSide`), the stream opened, the chat taken. */
async function appExchange(name: string, agentSide: ServerChild, customerSide: ServerChild): Promise<Exchange> {
  const admin = String((await apiCall(agentSide, 'POST', '/login', null, BENCH_ADMIN)).token);
  const tenantId = Number((await apiCall(agentSide, 'POST', '/tenants', admin, { name: 'bench' })).id);
  const member = { username: 'bench-agent', password: 'bench-agent-password-1' };
  await apiCall(agentSide, 'POST', '/users', admin, { ...member, email: 'agent@bench.example', name: 'Ana', roles: [{ role: 'user', tenant_id: tenantId }] });
  const token = String((await apiCall(agentSide, 'POST', '/login', null, member)).token);
  const me = Number((await apiCall(agentSide, 'GET', '/whoami', token)).id);
  const queue = Number((await apiCall(agentSide, 'POST', '/destinations', token, { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [me] })).id);
  const planId = Number((await apiCall(agentSide, 'POST', '/visual-plans', token, { name: 'People' })).id);
  const saved = await apiCall(agentSide, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: 1, ...queuePlan(queue) });
  await apiCall(agentSide, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: saved.version });
  const key = String((await apiCall(agentSide, 'POST', '/numbers', token, { number: '+551140009001', provider: 'webchat', chat_plan_id: planId, webchat_origins: [ORIGIN] })).webchat_key);

  const ears = hearing();
  let waiting: ((id: number) => void) | undefined;
  const stream = await openStream(`${agentSide.url}/api/v1/conversations/events`, { authorization: `Bearer ${token}` }, (type, data) => {
    const event = data as ConversationEvent;
    if (event.type !== type) expectThat(false, `an event of type ${event.type} sent as ${type}`);
    if (event.type === 'conversation.waiting') waiting?.(event.conversation_id);
    if (event.type === 'conversation.message' && event.message.author === 'customer') ears.heard(event.message.text);
  });
  const waited = new Promise<number>((resolve) => (waiting = resolve));
  const widgetBase = `${customerSide.url}/api/v1/webchat/${key}/conversations`;
  const started = (await checkedJson(widgetBase, { method: 'POST', headers: { origin: ORIGIN } }, 'start a web chat')) as WebchatConversation;
  const conversationId = await Promise.race([waited, delay(30_000).then(() => Promise.reject(new Error('the chat never reached the agent’s stream as waiting')))]);
  await apiCall(agentSide, 'POST', `/conversations/${conversationId}/take`, token);
  const shown = (await checkedJson(`${widgetBase}/${encodeURIComponent(started.conversation_id)}`, { headers: { origin: ORIGIN } }, 'read the web chat')) as WebchatConversation;
  const widgetUrl = `${widgetBase}/${encodeURIComponent(started.conversation_id)}`;

  return {
    name,
    servers: agentSide === customerSide ? [agentSide] : [agentSide, customerSide],
    revision: shown.revision,
    agentSends: async (text) => {
      await apiCall(agentSide, 'POST', `/conversations/${conversationId}/messages`, token, { text });
    },
    poll: async (after) => {
      const answer = (await checkedJson(`${widgetUrl}?after=${after}&wait=25`, { headers: { origin: ORIGIN } }, 'the widget’s long poll')) as WebchatConversation;
      return { revision: answer.revision, agentTexts: answer.messages.filter((message) => message.from === 'agent').map((message) => message.text) };
    },
    customerSends: async (id, text) => {
      const answer = (await checkedJson(
        `${widgetUrl}/messages`,
        { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify({ id, text }) },
        'the customer’s message',
      )) as WebchatConversation;
      return answer.revision;
    },
    agentHears: (text) => ears.wait(text),
    close: () => stream.close(),
  };
}

async function floorExchange(floor: ServerChild): Promise<Exchange> {
  const ears = hearing();
  const stream = await openStream(`${floor.url}/floor/events`, {}, (type, data) => {
    const event = data as { type: string; message: { author: string; text: string } };
    if (type === 'conversation.message' && event.message.author === 'customer') ears.heard(event.message.text);
  });
  const post = (url: string, text: string) =>
    checkedJson(`${floor.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }, `the floor's ${url}`) as Promise<{ revision: number }>;
  return {
    name: 'floor',
    servers: [floor],
    revision: 0,
    agentSends: async (text) => {
      await post('/floor/agent', text);
    },
    poll: async (after) => {
      const answer = (await checkedJson(`${floor.url}/floor/poll?after=${after}&wait=25`, {}, 'the floor’s long poll')) as { revision: number; messages: Array<{ from: string; text: string }> };
      return { revision: answer.revision, agentTexts: answer.messages.filter((message) => message.from === 'agent').map((message) => message.text) };
    },
    customerSends: async (_id, text) => (await post('/floor/customer', text)).revision,
    agentHears: (text) => ears.wait(text),
    close: () => stream.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// The measure

interface Direction {
  exchange: string;
  direction: 'agent → widget' | 'customer → agent';
  messages: number;
  p50: number;
  p99: number;
  cpuMsPerMessage: number | undefined;
}

const cpuOf = (servers: ServerChild[]): number | undefined => {
  const all = servers.map((server) => server.cpuSeconds());
  return all.every((value) => value !== undefined) ? all.reduce((sum, value) => sum + value, 0) : undefined;
};

let serial = 0;

/** `count` agent messages, one at a time, each while the widget's poll waits: ms from the send to the poll's answer. */
async function agentToWidget(exchange: Exchange, count: number): Promise<Float64Array> {
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const text = `agent ${(serial += 1)}`;
    const polled = exchange.poll(exchange.revision);
    await delay(POLL_SETTLE_MS);
    const sent = performance.now();
    const posted = exchange.agentSends(text);
    let answer = await polled;
    // A poll that reached the server after the send still answers with it; one that answered for anything else is asked again.
    while (!answer.agentTexts.includes(text)) answer = await exchange.poll(answer.revision);
    times[i] = performance.now() - sent;
    await posted;
    exchange.revision = answer.revision;
  }
  return times;
}

/** `count` customer messages, one at a time: ms from the widget's send to the event on the agent's stream. */
async function customerToAgent(exchange: Exchange, count: number): Promise<Float64Array> {
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const text = `customer ${(serial += 1)}`;
    const heard = exchange.agentHears(text);
    const sent = performance.now();
    const posted = exchange.customerSends(`c${serial}`, text);
    await Promise.race([heard, delay(10_000).then(() => Promise.reject(new Error(`“${text}” never reached the agent’s stream`)))]);
    times[i] = performance.now() - sent;
    exchange.revision = Math.max(exchange.revision, await posted);
  }
  return times;
}

async function measure(exchange: Exchange): Promise<Direction[]> {
  process.stderr.write(`  ${exchange.name}: ${settings.warmup} + ${settings.messages} messages each way\n`);
  const rows: Direction[] = [];
  for (const [direction, run] of [
    ['agent → widget', agentToWidget],
    ['customer → agent', customerToAgent],
  ] as const) {
    await run(exchange, settings.warmup);
    const before = cpuOf(exchange.servers);
    const times = (await run(exchange, settings.messages)).sort();
    const after = cpuOf(exchange.servers);
    rows.push({
      exchange: exchange.name,
      direction,
      messages: settings.messages,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      cpuMsPerMessage: before === undefined || after === undefined ? undefined : ((after - before) * 1000) / settings.messages,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Report

let targetFailures = 0;
const verdict = (ok: boolean) => {
  if (!ok) targetFailures++;
  return ok ? 'PASS' : 'FAIL';
};

function report(rows: Direction[], floor: Direction[]): string {
  const lines = [['exchange', 'direction', 'messages', 'p50 ms', 'p99 ms', 'ms CPU/msg', 'CPU ÷ floor', 'p50 ÷ floor', 'p99 ≤ 300 ms']];
  for (const row of [...rows, ...floor]) {
    const base = floor.find((f) => f.direction === row.direction);
    const isFloor = floor.includes(row);
    lines.push([
      row.exchange,
      row.direction,
      String(row.messages),
      fmt(row.p50),
      fmt(row.p99),
      row.cpuMsPerMessage === undefined ? '?' : fmt(row.cpuMsPerMessage, 3),
      isFloor || !base?.cpuMsPerMessage || row.cpuMsPerMessage === undefined ? '' : fmt(row.cpuMsPerMessage / base.cpuMsPerMessage, 1),
      isFloor || !base ? '' : fmt(row.p50 / base.p50, 1),
      isFloor ? '' : verdict(row.p99 <= TARGET_P99_MS),
    ]);
  }
  return table(lines);
}

// ---------------------------------------------------------------------------------------------
// Main

const servers = new ServerChildren(serverScript);

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  const loadBefore = os.loadavg();
  process.stdout.write(
    `Voxplan conversations bench — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}, load average ${loadBefore.map((n) => fmt(n, 1)).join(' ')}\n` +
      `${settings.messages} messages each way, one at a time, after ${settings.warmup} of warm-up; ` +
      (pinning ? `client on CPU ${LOADGEN_CPU}, servers on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-conversations-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = await benchDatabases(servers, dialects);
  const serverCpu = pinning ? SERVER_CPU : undefined;

  const rows: Direction[] = [];
  for (const dialect of dialects) {
    const env: NodeJS.ProcessEnv = {
      BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)),
      BENCH_PUBLIC_URL: 'https://chat.bench.example',
      // Instances of one database share it (the sessions' secrets).
      BENCH_MASTER_KEY: randomBytes(32).toString('hex'),
      // One client is one address and one key: the limits guard against a noisy page, not this.
      WEBCHAT_RATE_PER_ADDRESS: '1000000000',
      WEBCHAT_RATE_PER_KEY: '1000000000',
    };
    const url = await databaseUrl(dialect as Dialect);
    if (url) env.BENCH_DATABASE_URL = url;
    process.stderr.write(`voxplan on ${dialect}\n`);
    const agentSide = await servers.start('channels', env, serverCpu);
    // PostgreSQL: the widget on a second instance, so that each message crosses between them.
    const customerSide = dialect === 'postgres' ? await servers.start('channels', env, serverCpu) : agentSide;
    const exchange = await appExchange(dialect === 'postgres' ? 'postgres, 2 instances' : dialect, agentSide, customerSide);
    rows.push(...(await measure(exchange)));
    exchange.close();
    if (customerSide !== agentSide) await servers.stop(customerSide);
    await servers.stop(agentSide);
  }

  const floorServer = await servers.start('conversations-floor', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'floor-')) }, serverCpu);
  const floorSide = await floorExchange(floorServer);
  const floor = await measure(floorSide);
  floorSide.close();
  await servers.stop(floorServer);

  process.stdout.write(`\n${report(rows, floor)}\n`);
  process.stdout.write(
    `\np50/p99 = ms from the send (the agent's POST, the widget's POST) to the message seen on the other side (the widget's waiting long poll answered, the event read on the agent's stream); ` +
      `ms CPU/msg = the server processes' CPU (user + system, /proc) over the run ÷ messages (the poll that carries each message included; on PostgreSQL both Node instances, not PostgreSQL); ` +
      `floor = a bare Fastify route storing the message in SQLite and relaying it to a waiting long poll or an open SSE stream in the same process. ` +
      `Load average at the end: ${os.loadavg().map((n) => fmt(n, 1)).join(' ')}.\n`,
  );
}

await runBench(servers, main, () => ({ failures, targetFailures, strict: settings.strict }));
