/**
 * Chat channels bench: `npm run bench:channels:chat` (bench/README.md, "Channels: chat").
 *
 * 1. Inbound WhatsApp messages a second through the real app (a child process, bench/api/server.ts
 *    `channels`): deliveries as Meta posts them, one text message each, signed with the number's
 *    app secret over the raw body (X-Hub-Signature-256), from many distinct users at once. Each
 *    autocannon connection plays one user's whole conversation again and again with a new user each
 *    time: "Hi" (the plan greets and sends its menu as buttons), "1" (a text, the menu again), "2"
 *    (the goodbye, the chat ends). The replies go to a local server playing the Graph API's
 *    messages endpoint. A bare Fastify hello-world measured in the same run is the baseline.
 * 2. Memory per live web chat conversation: BENCH_CONVERSATIONS conversations started through the
 *    widget's API, each with a message, then the server's heap and RSS after a full GC (the child
 *    runs with --expose-gc), against the same figures before; again with BENCH_POLLS long polls
 *    open on as many of them.
 * Environment:
 *   BENCH_SECONDS=5            measured seconds (after BENCH_WARMUP_SECONDS=3 of warm-up)
 *   BENCH_CONNECTIONS=32       WhatsApp users writing at once (and hello-world connections)
 *   BENCH_DIALECT=both         sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_CONVERSATIONS=10000  web chat conversations for the memory figure (0: skip it)
 *   BENCH_POLLS=1000           long polls open for the second memory figure
 *   BENCH_PIN=1                0: no CPU pinning
 *   BENCH_PROFILE=0            1: afterwards, CPU-profile the server under the WhatsApp load, per dialect (kept in BENCH_PROFILE_DIR when set)
 *   BENCH_STRICT=0             1: exit 3 when a target FAILs (failed requests always exit 1)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { type CpuProfile, formatSummary, summarize } from '../api/cpu-profile.ts';
import { BENCH_ADMIN } from '../api/protocol.ts';
import { envNumber } from '../lib/env.ts';
import { apiCall } from '../lib/api-call.ts';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases, type Dialect, dialectsOf } from '../lib/dialects.ts';
import { signWhatsapp, whatsappDelivery, whatsappText } from '../../apps/server/test/whatsapp-graph.ts';
import { fmt, type LoadFigures, measureLoad, pct, runLoad, table } from '../lib/load.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { type MemoryFigures, measureMemory, memoryReport, TARGET } from './webchat-memory.ts';

const dialects = dialectsOf(process.env.BENCH_DIALECT);
const settings = {
  seconds: envNumber('BENCH_SECONDS', 5),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 3),
  connections: envNumber('BENCH_CONNECTIONS', 32),
  conversations: envNumber('BENCH_CONVERSATIONS', 10_000),
  polls: envNumber('BENCH_POLLS', 1000),
  pin: process.env.BENCH_PIN !== '0',
  profile: process.env.BENCH_PROFILE === '1',
  profileDir: process.env.BENCH_PROFILE_DIR,
  strict: process.env.BENCH_STRICT === '1',
};
if (settings.conversations > 0 && settings.polls > settings.conversations) throw new Error('BENCH_POLLS cannot be more than BENCH_CONVERSATIONS (one poll a conversation)');

const serverScript = path.resolve(import.meta.dirname, '../api/server.ts');
const pinning = settings.pin && canPin();
const PUBLIC_URL = 'https://chat.bench.example';
const APP_SECRET = randomBytes(16).toString('hex');
const WHATSAPP_TOKEN = `EAAG${randomBytes(16).toString('hex')}`;
const PHONE_ID = '106540352242922';
const WHATSAPP_NUMBER = '+551140000001';
const WEBCHAT_NUMBER = '+551140000002';
const ORIGIN = 'https://shop.bench.example';

/** Problems that make the figures meaningless: failed requests, answers or Graph API calls not as the conversation expects. */
const failures: string[] = [];
function expectThat(ok: boolean, what: string): void {
  if (!ok && failures.length < 5) failures.push(what);
}

// ---------------------------------------------------------------------------------------------
// The chat plan: a greeting, a three-option menu (buttons on WhatsApp), a text that leads back to
// the menu, and a goodbye.

function chatPlan() {
  const blocks: Array<[string, string, Record<string, unknown>]> = [
    ['start', 'start', { hangup_chat_message: 'Bye!' }],
    ['welcome', 'play_message', { chat_text: 'Welcome to ACME.' }],
    ['menu', 'voice_menu', { chat_text: 'How can we help?', options: ['Plans', 'Goodbye', 'Billing'].map((label, index) => ({ digits: String(index + 1), label })) }],
    ['plans', 'play_message', { chat_text: 'Our plans start at 10 a month.' }],
    ['bye', 'hangup', {}],
  ];
  const links: Array<[string, string, string]> = [
    ['start', 'next', 'welcome'],
    ['welcome', 'next', 'menu'],
    ['menu', '1', 'plans'],
    ['menu', '3', 'plans'],
    ['plans', 'next', 'menu'],
    ['menu', '2', 'bye'],
  ];
  return {
    settings: { session_timeout_min: 30, chat_text: 'Closed for inactivity.' },
    nodes: blocks.map(([id, type, data], index) => ({ id, type, position: { x: index * 320, y: 0 }, data })),
    edges: links.map(([source, exit, target], index) => ({ id: `e${index + 1}`, source, source_exit: exit, target })),
  };
}

/** What a user writes in one conversation, and the Graph API messages each answer sends. */
const CONVERSATION: Array<{ text: string; sends: number }> = [
  { text: 'Hi', sends: 2 }, // the welcome, the menu's buttons
  { text: '1', sends: 2 }, // the plans text, the menu again
  { text: '2', sends: 1 }, // the start block's goodbye; the chat ends
];
const SENDS_PER_CONVERSATION = CONVERSATION.reduce((sum, step) => sum + step.sends, 0);

// ---------------------------------------------------------------------------------------------
// The Graph API, played locally: every send answered 200 with a new message id, as Meta does.

let graphSends = 0;
function startGraph(): Promise<http.Server> {
  const graph = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      graphSends++;
      const to = (JSON.parse(Buffer.concat(chunks).toString()) as { to?: string }).to ?? '';
      expectThat(request.url === `/graph/v23.0/${PHONE_ID}/messages` && request.headers.authorization === `Bearer ${WHATSAPP_TOKEN}`, `a Graph API request not as documented: ${request.url}`);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.out.${graphSends}` }] }));
    });
  });
  return new Promise((resolve) => graph.listen(0, '127.0.0.1', () => resolve(graph)));
}

// ---------------------------------------------------------------------------------------------
// WhatsApp users, as Meta delivers their messages

interface UserContext {
  user?: string;
}
let numberId = 0;
let serial = 0;

/** Meta's delivery of one text message from `user`, as the JSON text it signs (the shape of the server's WhatsApp tests). */
function deliveryBody(user: string, text: string): string {
  return JSON.stringify(whatsappDelivery(whatsappText(user, `wamid.in.${process.pid}.${(serial += 1)}`, text), PHONE_ID));
}

function signedDelivery(user: string, text: string) {
  const body = deliveryBody(user, text);
  return {
    method: 'POST' as const,
    path: `/api/v1/hooks/whatsapp/${numberId}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    body,
  };
}

let users = 0;
/** Graph API sends the answered deliveries should have made (each sends its replies before its 200). */
let expectedSends = 0;
/** One conversation, a message a request; its first request takes a user nobody has been yet. */
function conversationRequests(): autocannon.Request[] {
  return CONVERSATION.map(({ text }, index) => ({
    setupRequest: (request, context: UserContext) => {
      if (index === 0) context.user = `55119${String(process.pid % 1000).padStart(3, '0')}${String((users += 1)).padStart(7, '0')}`;
      return { ...request, ...signedDelivery(context.user!, text) };
    },
    onResponse: (status, body) => {
      if (status === 200) expectedSends += CONVERSATION[index]!.sends;
      expectThat(status === 200 && body === '{"ok":true}', `a delivery answered ${status} ${body.slice(0, 200)}`);
    },
  }));
}

// ---------------------------------------------------------------------------------------------
// Set-up through the API


/** A tenant, the published chat plan, a WhatsApp number and a web chat number running it; answers the web chat's key. */
async function seed(server: ServerChild): Promise<string> {
  const token = String((await apiCall(server, 'POST', '/login', null, BENCH_ADMIN)).token);
  const tenantId = Number((await apiCall(server, 'POST', '/tenants', token, { name: 'bench' })).id);
  const planId = Number((await apiCall(server, 'POST', '/visual-plans', token, { name: 'Bench chat' }, tenantId)).id);
  const saved = await apiCall(server, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: 1, ...chatPlan() });
  await apiCall(server, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: saved.version });
  const whatsapp = { provider: 'whatsapp', whatsapp_token: WHATSAPP_TOKEN, whatsapp_app_secret: APP_SECRET, whatsapp_phone_number_id: PHONE_ID };
  numberId = Number((await apiCall(server, 'POST', '/numbers', token, { number: WHATSAPP_NUMBER, chat_plan_id: planId, ...whatsapp }, tenantId)).id);
  const webchat = await apiCall(server, 'POST', '/numbers', token, { number: WEBCHAT_NUMBER, provider: 'webchat', chat_plan_id: planId, webchat_origins: [ORIGIN] }, tenantId);
  return String(webchat.webchat_key);
}

/** One conversation on its own first, its deliveries and the Graph API's sends checked, so that a broken path fails loudly before any figure. */
async function checkOneConversation(server: ServerChild): Promise<void> {
  const before = graphSends;
  const user = '5511900000000';
  for (const step of CONVERSATION) {
    const sendsBefore = graphSends;
    const { method, path: url, headers, body } = signedDelivery(user, step.text);
    const response = await fetch(`${server.url}${url}`, { method, headers, body });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the checked conversation: "${step.text}" answered ${response.status} ${text}`);
    if (graphSends - sendsBefore !== step.sends) throw new Error(`the checked conversation: "${step.text}" sent ${graphSends - sendsBefore} messages, not ${step.sends}`);
  }
  const bad = signedDelivery(user, 'forged');
  const forged = await fetch(`${server.url}${bad.path}`, { method: 'POST', headers: { ...bad.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, body: bad.body });
  if (forged.status !== 403) throw new Error(`a forged signature answered ${forged.status}, not 403: the bench would not be measuring the check`);
  if (graphSends - before !== SENDS_PER_CONVERSATION || failures.length > 0) throw new Error(`the checked conversation failed: ${failures.join('; ')}`);
}

/** The server's CPU profile under the WhatsApp load (sampled every 200 µs, which slows it), summarised. */
async function profiled(server: ServerChild, dialect: Dialect, dir: string): Promise<string> {
  const file = path.join(settings.profileDir ?? dir, `chat-whatsapp-${dialect}.cpuprofile`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await server.command({ cmd: 'profileStart' });
  const result = await runLoad(server, { requests: conversationRequests() }, settings.connections, settings.seconds);
  await server.command({ cmd: 'profileStop', file });
  const summary = formatSummary(summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, 25));
  return `\nCPU profile of the server on ${dialect} under the WhatsApp messages (${fmt(result.requests.total / result.duration, 0)} messages/s while sampling)${settings.profileDir ? `, saved to ${file}` : ''}\n${summary}\n`;
}

// ---------------------------------------------------------------------------------------------
// Report

let targetFailures = 0;
const verdict = (ok: boolean) => {
  if (!ok) targetFailures++;
  return ok ? 'PASS' : 'FAIL';
};

function loadReport(baseline: LoadFigures, rows: LoadFigures[]): string {
  const lines = [['figure', 'req/s', 'ratio', 'p50 ms', 'p99 ms', 'ms CPU/req', 'srv CPU', 'loadgen CPU', 'load avg', 'failed']];
  for (const m of rows) {
    lines.push([m.name, fmt(m.rps, 0), fmt(m.rps / baseline.rps, 3), fmt(m.p50), fmt(m.p99), fmt(m.cpuMsPerRequest, 3), m.serverCpu.map(pct).join(' + '), pct(m.loadgenCpu), fmt(m.load, 1), String(m.failed)]);
  }
  return table(lines);
}

// ---------------------------------------------------------------------------------------------
// Main

const servers = new ServerChildren(serverScript);

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan channels bench (chat) — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}\n` +
      `WhatsApp: ${settings.connections} users writing at once, warm-up ${settings.warmupSeconds}s + ${settings.seconds}s; ` +
      `a conversation: ${CONVERSATION.length} signed deliveries of one text message each, ${SENDS_PER_CONVERSATION} Graph API sends; ` +
      (pinning ? `load generator and Graph API on CPU ${LOADGEN_CPU}, server on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-chat-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const graph = await startGraph();
  servers.onStopAll(() => new Promise((resolve) => graph.close(resolve)));
  const databaseUrl = await benchDatabases(servers, dialects);
  const serverCpu = pinning ? SERVER_CPU : undefined;
  const options = { connections: settings.connections, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, failures };

  const hello = await servers.start('hello', {}, serverCpu);
  const helloFirst = await measureLoad('hello-world GET / (first)', [hello], {}, options);
  await servers.stop(hello);

  const rows: LoadFigures[] = [];
  const memory: MemoryFigures[] = [];
  let profileText = '';
  for (const dialect of dialects) {
    const env: NodeJS.ProcessEnv = {
      BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)),
      BENCH_PUBLIC_URL: PUBLIC_URL,
      BENCH_MASTER_KEY: randomBytes(32).toString('hex'),
      WHATSAPP_GRAPH_URL: `http://127.0.0.1:${(graph.address() as AddressInfo).port}/graph`,
      // One load generator is one address and one key: the limits guard against one noisy page, not this.
      WEBCHAT_RATE_PER_ADDRESS: '1000000000',
      WEBCHAT_RATE_PER_KEY: '1000000000',
      WEBCHAT_MAX_OPEN_PER_NUMBER: '1000000000',
      WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim(),
    };
    const url = await databaseUrl(dialect);
    if (url) env.BENCH_DATABASE_URL = url;
    process.stderr.write(`voxplan on ${dialect}\n`);
    const app = await servers.start('channels', env, serverCpu);
    const key = await seed(app);
    await checkOneConversation(app);
    const sendsBefore = graphSends;
    expectedSends = 0;
    const figures = await measureLoad(`WhatsApp messages, ${dialect}`, [app], { requests: conversationRequests() }, options);
    rows.push(figures);
    // Every message answered sent its replies: a message that ran nothing would flatter the figure. A delivery
    // still in flight when the warm-up or the run stops has sent its replies but is not counted as answered.
    const sends = graphSends - sendsBefore;
    const inFlight = 2 * settings.connections * Math.max(...CONVERSATION.map((step) => step.sends));
    expectThat(sends >= expectedSends && sends <= expectedSends + inFlight, `the Graph API got ${sends} sends, ${expectedSends} expected`);
    if (settings.profile) profileText += await profiled(app, dialect, dataDir);
    await servers.stop(app);
    if (settings.conversations > 0) {
      // A fresh process on the same database: nothing left over from the WhatsApp load to be freed during the measure.
      const fresh = await servers.start('channels', env, serverCpu);
      memory.push(await measureMemory(fresh, key, dialect, { conversations: settings.conversations, polls: settings.polls, origin: ORIGIN }, expectThat));
      await servers.stop(fresh);
    }
  }

  const helloAgain = await servers.start('hello', {}, serverCpu);
  const helloLast = await measureLoad('hello-world GET / (last)', [helloAgain], {}, options);
  await servers.stop(helloAgain);
  const baseline = helloLast.rps > helloFirst.rps ? helloLast : helloFirst;

  process.stdout.write(`\n${loadReport(baseline, [helloFirst, helloLast, ...rows])}\n`);
  if (memory.length > 0) process.stdout.write(`\n${memoryReport(memory, verdict)}\n`);
  process.stdout.write(profileText);
  process.stdout.write(
    `\nreq/s of WhatsApp = deliveries a second, one text message each, its signature checked, its turn run and its replies sent to the Graph API before the 200; ` +
      `ratio = req/s ÷ the better hello-world req/s; ms CPU/req = the server process's CPU (user + system, /proc) ÷ messages; on PostgreSQL the Node server's alone.\n` +
      `web chat memory = growth of the server process's heap and RSS, after a full GC, over the figure before the conversations, ÷ conversations ` +
      `(each started and sent one message; the long polls wait 25 s on the first BENCH_POLLS of them). Target: ≤ ${TARGET.bytesPerConversation / 1024} KB a conversation.\n`,
  );
}

await runBench(servers, main, () => ({ failures, targetFailures, strict: settings.strict }));
