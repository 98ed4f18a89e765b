/**
 * The floors: the least a server on this stack (Node, Fastify, better-sqlite3, the twilio library)
 * can do for the benches' uncached requests, measured in the same run as the app and the
 * hello-world. What a floor cannot reach, no design of the app can: it is the query or the turn
 * and nothing else (no sign-in, no tenant check beyond the header, no validation, no audit, no
 * read cache, no engine), with statements prepared once.
 *
 * - `startApiFloor`: the destinations routes bench/api/run.ts asks for, on the database the real
 *   app migrated and seeded, answering the same rows, with what the contract asks of every answer
 *   at its least (the security headers, a signed-in caller, a write's audit entry).
 * - `startTwilioFloor`: the six webhook requests of bench/channels/run.ts's call, each checked with
 *   the twilio library's `validateRequest`, answered with its `VoiceResponse`, and stored (the
 *   turn's step and a small state in one upsert; the report an insert).
 * - `startAgiFloor`: the FastAGI call of bench/channels/agi.ts: the variables block read, each of
 *   the five turns stored in one upsert, the commands the app sends for it written, the report an
 *   insert; the prompts' URLs are a small WAV served by the floor's HTTP port (a real PBX fetches them).
 */
import formbody from '@fastify/formbody';
import type { ServerResponse } from 'node:http';
import net from 'node:net';
import SQLite from 'better-sqlite3';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import twilio from 'twilio';
import { ReadStatement } from '../../apps/server/src/db/database.ts';
import { createAccessTokens } from '../../apps/server/src/lib/access-tokens.ts';
import { randomToken } from '../../apps/server/src/lib/keys.ts';
import { contentSecurityDirectives, helmetHeaders } from '../../apps/server/src/plugins/security-headers.ts';
import { silentWav } from '../../apps/server/test/fake-openai.ts';

export function openSqlite(file: string): SQLite.Database {
  // As the app opens its database (apps/server/src/db/database.ts).
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  return sqlite;
}

interface NameRange {
  name?: { between?: [string, string] };
}

const rangeOf = (where: NameRange | undefined): [string, string] => {
  const between = where?.name?.between;
  if (!between) throw new Error('the floor answers name ranges only');
  return between;
};

/**
 * `file`: the SQLite database the app seeded (its `voxplan.db`).
 *
 * What the contract asks of every answer, the floor does too, at its least (bench/README.md,
 * "Issue 40, fourth pass"): the security headers every answer carries (docs/security.md; the
 * app's own set, set from one record as the app sets them), a signed-in caller (the token it
 * issued, an access token of the app's kind and size so that both are sent the same bytes, looked
 * up in a map: no signature, no sign-in, no roles), the destination's `agent_ids` (none: no
 * seeded destination is a queue), and a write's audit entry in the write's own transaction, with
 * the row before and after (an update reads the row first). Without them the floor answered less
 * than any server that keeps the contract could.
 */
export async function startApiFloor(file: string): Promise<FastifyInstance> {
  const sqlite = openSqlite(file);
  // Rows made as the app makes them, from better-sqlite3's arrays (the faster way).
  const byId = new ReadStatement(sqlite.prepare('SELECT * FROM destinations WHERE tenant_id = ? AND id = ?'));
  const list = new ReadStatement(sqlite.prepare('SELECT * FROM destinations WHERE tenant_id = ? AND name BETWEEN ? AND ? ORDER BY name LIMIT ?'));
  const count = sqlite.prepare('SELECT count(*) AS count FROM destinations WHERE tenant_id = ? AND name BETWEEN ? AND ?');
  const insert = sqlite.prepare(
    "INSERT INTO destinations (tenant_id, created_time, updated_time, name, kind, uri, description) VALUES (?, ?, ?, ?, ?, ?, '') RETURNING *",
  );
  const update = sqlite.prepare('UPDATE destinations SET description = ?, updated_time = ? WHERE tenant_id = ? AND id = ? RETURNING *');
  const audit = sqlite.prepare(
    "INSERT INTO audit_log (created_time, user_id, username, tenant_id, action, entity, entity_id, before, after, source_ip) VALUES (?, ?, ?, ?, ?, 'destination', ?, ?, ?, ?)",
  );
  const securityHeaders = helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityDirectives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
  // A token of the app's own kind and size (an access token for a sign-in id of the app's length):
  // the floor is sent the same bytes as the app, and looks them up, without checking a signature.
  const TOKEN = createAccessTokens(Buffer.from(randomToken()), 3600).sign({ userId: 1, sessionId: randomToken(18) });
  const signedIn = new Map([[`Bearer ${TOKEN}`, { userId: 1, username: 'admin' }]]);
  type Caller = { userId: number; username: string };
  const callers = new WeakMap<FastifyRequest, Caller>();
  const callerOf = (request: FastifyRequest) => callers.get(request)!;
  const presented = (row: Record<string, unknown> | undefined) => {
    if (row) row.agent_ids = [];
    return row;
  };
  const audited = (request: FastifyRequest, action: 'create' | 'update', tenantId: number, id: number, before: unknown, after: unknown) => {
    const { userId, username } = callerOf(request);
    audit.run(new Date().toISOString(), userId, username, tenantId, action, String(id), before === null ? null : JSON.stringify(before), JSON.stringify(after), request.ip);
  };
  const created = sqlite.transaction((request: FastifyRequest, tenantId: number, body: { name: string; kind: string; uri: string }) => {
    const now = new Date().toISOString();
    const row = presented(insert.get(tenantId, now, now, body.name, body.kind, body.uri) as Record<string, unknown>)!;
    audited(request, 'create', tenantId, row.id as number, null, row);
    return row;
  });
  const updated = sqlite.transaction((request: FastifyRequest, tenantId: number, id: number, description: string) => {
    const [before] = byId.all(tenantId, id) as Array<Record<string, unknown>>;
    if (!before) return undefined;
    const after = presented(update.get(description, new Date().toISOString(), tenantId, id) as Record<string, unknown>)!;
    audited(request, 'update', tenantId, id, presented(before), after);
    return after;
  });

  const app = Fastify();
  app.addHook('onClose', () => sqlite.close());
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(securityHeaders);
    if (request.url === '/api/v1/login') return done();
    const caller = signedIn.get(request.headers.authorization ?? '');
    if (!caller) return void reply.code(401).send({ error: 'not signed in' });
    callers.set(request, caller);
    done();
  });
  const tenantOf = (headers: Record<string, unknown>) => Number(headers['x-tenant-id']);
  const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
  // What run.ts checks before measuring, so that it drives the floor as it drives the app.
  app.post('/api/v1/login', async () => ({ token: TOKEN }));
  app.get('/api/v1/users/1', async () => ({ id: 1 }));
  app.get<{ Params: { id: string } }>('/api/v1/destinations/:id', async (request, reply) => {
    const [row] = byId.all(tenantOf(request.headers), Number(request.params.id)) as Array<Record<string, unknown>>;
    return presented(row) ?? reply.code(404).send({ error: 'not found' });
  });
  app.get<{ Querystring: { filter: string } }>('/api/v1/destinations', async (request) => {
    const filter = JSON.parse(request.query.filter) as { where?: NameRange; limit?: number };
    const rows = list.all(tenantOf(request.headers), ...rangeOf(filter.where), filter.limit ?? 1000) as Array<Record<string, unknown>>;
    for (const row of rows) presented(row);
    return rows;
  });
  app.get<{ Querystring: { where: string } }>('/api/v1/destinations/count', async (request) =>
    count.get(tenantOf(request.headers), ...rangeOf(JSON.parse(request.query.where) as NameRange)),
  );
  app.post<{ Body: { name: string; kind: string; uri: string } }>('/api/v1/destinations', async (request, reply) => {
    const { name, kind, uri } = request.body;
    if (!isText(name) || !isText(kind) || !isText(uri)) return reply.code(400).send({ error: 'invalid input' });
    return reply.code(201).send(created(request, tenantOf(request.headers), request.body));
  });
  app.patch<{ Params: { id: string }; Body: { description: string } }>('/api/v1/destinations/:id', async (request, reply) => {
    const { description } = request.body;
    if (typeof description !== 'string') return reply.code(400).send({ error: 'invalid input' });
    return updated(request, tenantOf(request.headers), Number(request.params.id), description) ?? reply.code(404).send({ error: 'not found' });
  });
  return app;
}

type Form = Record<string, string>;

/** A call floor's storage: a turn's step and a small state in one upsert, the report an insert. */
function openTurnStore(file: string) {
  const sqlite = openSqlite(file);
  sqlite.exec(`
    CREATE TABLE IF NOT EXISTS turns (id TEXT PRIMARY KEY, step INTEGER NOT NULL, state TEXT NOT NULL, updated_time TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS reports (id TEXT PRIMARY KEY, status TEXT NOT NULL, duration INTEGER, ended_time TEXT NOT NULL);
  `);
  const storeTurn = sqlite.prepare(
    'INSERT INTO turns (id, step, state, updated_time) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET step = excluded.step, state = excluded.state, updated_time = excluded.updated_time',
  );
  const storeReport = sqlite.prepare('INSERT INTO reports (id, status, duration, ended_time) VALUES (?, ?, ?, ?)');
  return { sqlite, storeTurn, storeReport };
}

/** `file`: a new SQLite database of its own; `publicUrl` and `token`: what the requests are signed with. */
export async function startTwilioFloor(file: string, publicUrl: string, token: string): Promise<FastifyInstance> {
  const { sqlite, storeTurn, storeReport } = openTurnStore(file);

  const app = Fastify();
  app.addHook('onClose', () => sqlite.close());
  await app.register(formbody);
  const hooks = '/api/v1/hooks/twilio/';
  const actionUrl = (sid: string, step: number) => `${publicUrl}${hooks}voice?session=${encodeURIComponent(sid)}&step=${step}`;

  /** The answer of each step of the bench's call: the main menu, the sales menu, the dial, the survey, the goodbye. */
  function answer(sid: string, step: number): string {
    const response = new twilio.twiml.VoiceResponse();
    const say = { language: 'en-US' as const };
    switch (step) {
      case 0:
        response.say(say, 'Welcome.');
        response.gather({ action: actionUrl(sid, 1), input: ['dtmf'], numDigits: 1, timeout: 5 }).say(say, 'Press 1 for sales.');
        break;
      case 1:
        response.gather({ action: actionUrl(sid, 2), input: ['dtmf'], numDigits: 1, timeout: 5 }).say(say, 'Press 2 to talk to us.');
        break;
      case 2:
        response.say(say, 'Connecting.');
        response.dial({ action: actionUrl(sid, 3), timeout: 30 }).number('+551140000001');
        break;
      case 3:
        response.say(say, 'Everyone is busy.');
        response.gather({ action: actionUrl(sid, 4), input: ['dtmf'], numDigits: 1, timeout: 5 }).say(say, 'Rate us from 1 to 5.');
        break;
      default:
        response.say(say, 'Thank you.');
        response.hangup();
    }
    return response.toString();
  }

  const checked = (url: string, signature: unknown, form: Form) =>
    typeof signature === 'string' && twilio.validateRequest(token, signature, `${publicUrl}${url}`, form);

  app.post<{ Body: Form; Querystring: { step?: string } }>(`${hooks}voice`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    const sid = request.body.CallSid ?? '';
    const step = Number(request.query.step ?? 0);
    storeTurn.run(sid, step, JSON.stringify({ step, digits: request.body.Digits ?? null, dial: request.body.DialCallStatus ?? null }), new Date().toISOString());
    return reply.type('text/xml; charset=utf-8').send(answer(sid, step));
  });
  app.post<{ Body: Form }>(`${hooks}status`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    storeReport.run(request.body.CallSid ?? '', request.body.CallStatus ?? '', Number(request.body.CallDuration ?? 0), new Date().toISOString());
    return reply.code(204).send();
  });
  return app;
}

/**
 * `file`: a new SQLite database of its own; `publicUrl`: where its HTTP server (the returned app)
 * listens, for the prompts' URLs. Returns the HTTP app and the AGI server (listen on both).
 */
export function startAgiFloor(file: string, publicUrl: string): { app: FastifyInstance; agi: net.Server } {
  const { sqlite, storeTurn, storeReport } = openTurnStore(file);
  // Half a second, at the telephony rate.
  const wav = silentWav(500, 8000);
  const app = Fastify();
  app.get('/prompt.wav', async (_request, reply) => reply.type('audio/wav').send(wav));
  const prompt = (text: string, keys: boolean) => `STREAM FILE "${publicUrl}/prompt.wav?text=${encodeURIComponent(text)}" "${keys ? '0123456789*#' : ''}"`;
  /** Each turn's commands (the last one's answer makes the next turn), as the app sends them for the bench's IVR. */
  const turns = [
    ['ANSWER', prompt('Welcome.', false), prompt('Press 1 for sales.', true)],
    [prompt('Press 2 to talk to us.', true)],
    [prompt('Connecting.', false), 'EXEC Dial "Local/2002@from-voxplan,20"', 'GET VARIABLE DIALSTATUS'],
    [prompt('Everyone is busy.', false), prompt('Rate us from 1 to 5.', true)],
    [prompt('Thank you.', false), 'EXEC Hangup 16'],
  ];

  const agi = net.createServer((socket) => {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    let buffered = '';
    let id = '';
    let inVariables = true;
    let step = 0;
    let sent = 0;
    const started = Date.now();
    const next = () => {
      const commands = turns[step];
      if (!commands) return socket.end();
      if (sent === 0) storeTurn.run(id, step, JSON.stringify({ step }), new Date().toISOString());
      const command = commands[sent];
      if (command === undefined) return;
      sent += 1;
      socket.write(`${command}\n`);
    };
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        if (inVariables) {
          if (line.startsWith('agi_uniqueid:')) id = line.slice('agi_uniqueid:'.length).trim();
          if (line === '') {
            inVariables = false;
            next();
          }
          continue;
        }
        if (line === 'HANGUP' || !line.startsWith('200')) continue;
        // A key that cut a prompt short, the dial's status, or the turn's last answer: the next turn.
        const result = Number(/^200 result=(-?\d+)/.exec(line)?.[1]);
        const keyed = result > 0 && (turns[step]![sent - 1] ?? '').endsWith('*#"');
        if (keyed || sent >= turns[step]!.length) {
          if (step === turns.length - 1) {
            storeReport.run(id, 'completed', Math.round((Date.now() - started) / 1000), new Date().toISOString());
            socket.end();
            return;
          }
          step += 1;
          sent = 0;
        }
        next();
      }
    });
    socket.on('error', () => undefined);
  });
  agi.on('close', () => sqlite.close());
  return { app, agi };
}

/**
 * The conversations floor (bench/conversations/run.ts): the exchange of one chat between a person
 * and a customer, with nothing else. The agent's message is stored (one insert) and answers the
 * customer's waiting long poll in this process; the customer's message is stored and written to
 * the agent's open Server-Sent Events stream. No sign-in, no conversation or session lookup, no
 * instance bus: what a design of the app could not go below on this stack.
 */
export function startConversationsFloor(file: string): FastifyInstance {
  const sqlite = openSqlite(file);
  sqlite.exec("CREATE TABLE IF NOT EXISTS floor_messages (id INTEGER PRIMARY KEY, author TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL)");
  const insert = sqlite.prepare('INSERT INTO floor_messages (author, text, at) VALUES (?, ?, ?) RETURNING id');
  const app = Fastify();
  app.addHook('onClose', () => sqlite.close());
  let revision = 0;
  let last: { from: string; text: string; at: string } | undefined;
  const polls = new Set<() => void>();
  const streams = new Set<ServerResponse>();

  app.post<{ Body: { text: string } }>('/floor/agent', async (request, reply) => {
    const at = new Date().toISOString();
    insert.get('agent', request.body.text, at);
    revision++;
    last = { from: 'agent', text: request.body.text, at };
    for (const wake of polls) wake();
    polls.clear();
    return reply.code(201).send({ revision });
  });
  app.get<{ Querystring: { after: string; wait: string } }>('/floor/poll', async (request) => {
    const after = Number(request.query.after);
    if (revision <= after) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Number(request.query.wait) * 1000);
        polls.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return { revision, messages: last ? [last] : [] };
  });
  app.post<{ Body: { text: string } }>('/floor/customer', async (request) => {
    const at = new Date().toISOString();
    const { id } = insert.get('customer', request.body.text, at) as { id: number };
    revision++;
    const data = JSON.stringify({ type: 'conversation.message', message: { id, author: 'customer', text: request.body.text, at } });
    for (const stream of streams) stream.write(`event: conversation.message\ndata: ${data}\n\n`);
    return { revision };
  });
  app.get('/floor/events', (request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    reply.raw.write(': ready\n\n');
    streams.add(reply.raw);
    request.raw.on('close', () => streams.delete(reply.raw));
  });
  return app;
}
