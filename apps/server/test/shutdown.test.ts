import http from 'node:http';
import type net from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { startContext } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { createSessionRuntime } from '../src/modules/sessions/sessions.service.ts';
import { ADMIN } from './harness.ts';
import { type Cleanups, createTenantMemberOver, request, startServerProcess as startProcess } from './server-process.ts';
import { type FixtureDocument, storePlan } from './sessions-helpers.ts';
import { connectSimulator } from './simulator-client.ts';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The server as `npm start` runs it, in a child process on a fresh database. */
const startServerProcess = (extraEnv: NodeJS.ProcessEnv = {}) => startProcess(cleanups, extraEnv);

test('SIGTERM lets the request in flight finish, then the process exits cleanly', async () => {
  const { child, exited, agent, port } = await startServerProcess();

  // Password hashing makes a sign-in take long enough to still be running when the signal lands.
  const inFlight = request(agent, port, 'POST', '/api/v1/login', { username: ADMIN.username, password: ADMIN.password });
  await new Promise((resolve) => setTimeout(resolve, 5));
  child.kill('SIGTERM');

  const answer = await inFlight;
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toHaveProperty('token');
  expect(await exited).toBe(0);
  await expect(request(new http.Agent(), port, 'GET', '/api/v1/health')).rejects.toThrow(/ECONNREFUSED/);
});

test('SIGTERM while a plan webhook is being sent: the answer is recorded before the process exits', async () => {
  const { child, exited, config, call } = await startServerProcess();
  const { token } = await call<{ token: string }>('POST', '/login', { username: ADMIN.username, password: ADMIN.password });
  const tenant = await call<{ id: number }>('POST', '/tenants', { name: 'shutdown-hooks' }, token);
  const filter = encodeURIComponent(JSON.stringify({ where: { name: 'outbound_allow_loopback' } }));
  const [loopback] = await call<{ id: number }[]>('GET', `/configurations?filter=${filter}`, undefined, token);
  await call('PATCH', `/configurations/${loopback!.id}`, { value: 'true' }, token);

  // The receiver holds its answer until the server has been told to stop.
  let answer: () => void = () => {};
  let reached: () => void = () => {};
  const isReached = new Promise<void>((resolve) => (reached = resolve));
  const receiver = http.createServer((req, res) => {
    req.resume();
    answer = () => res.end('ok');
    reached();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    receiver.closeAllConnections();
    receiver.close();
  });

  // The session runtime's side: the event is queued in the database the server runs on.
  const database = openDatabase(config);
  cleanups.push(() => database.close());
  const id = await enqueuePlanEvent(database.db, {
    tenantId: tenant.id,
    planId: 1,
    url: `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`,
    event: 'session.started',
    payload: { session_id: 'shutdown' },
  });

  await isReached;
  child.kill('SIGTERM');
  // Long enough for the server to be well into its shutdown before the receiver answers.
  await new Promise((resolve) => setTimeout(resolve, 300));
  answer();

  expect(await exited).toBe(0);
  const row = await database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, lease_until: null });
});

test('the server sweeps idle chats until it shuts down', async () => {
  const { env, child, exited } = await startServerProcess({ SESSION_SWEEP_INTERVAL: '1' });
  // This process starts a chat on the same database, with a clock an hour behind: the chat is
  // already past its plan's timeout, and only the server's own sweeper will end it.
  const started = await startContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  cleanups.push(() => started.close());
  const { db } = started.ctx;
  const tenant = await db.insertInto('tenants').values({ name: 'sweeper', created_time: new Date().toISOString(), integrations: null }).returning('id').executeTakeFirstOrThrow();
  const waitingChat: FixtureDocument = {
    format_version: 1,
    settings: { session_timeout_min: 1, chat_text: 'Closed for inactivity.' },
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'ask', type: 'voice_menu', data: { voice_text: 'Pick one.', options: [{ digits: '1', label: 'One' }] } },
    ],
    edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'ask' }],
  };
  const planId = await storePlan(started.ctx, tenant.id, waitingChat, { name: 'Waiting chat' });
  const scripts = new LuaScriptRunner();
  cleanups.push(() => scripts.close());
  const runtime = createSessionRuntime(started.ctx, { scripts, clock: { now: () => new Date(Date.now() - 3_600_000) } });
  await runtime.start({ id: 'idle-chat', tenant_id: tenant.id, plan_id: planId, channel: 'chat', provider: 'webchat', caller: 'visitor', called: 'site' });

  await expect.poll(async () => (await runtime.find('idle-chat'))?.session.hangup_cause, { timeout: 20_000 }).toBe('session_timeout');
  const report = await db.selectFrom('call_reports').select(['hangup_cause', 'disposition']).where('session_id', '=', 'idle-chat').executeTakeFirst();
  expect(report).toEqual({ hangup_cause: 'session_timeout', disposition: 'abandoned' });

  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

test('SIGTERM with a simulator call open: the socket is closed and its call hung up and stored before the process exits', async () => {
  const { child, exited, port, config, call } = await startServerProcess();
  const { token } = await call<{ token: string }>('POST', '/login', { username: ADMIN.username, password: ADMIN.password });
  const user = await createTenantMemberOver(call, token, 'shutdown-simulator');
  const plan = await call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Held call' }, user.token);
  await call('PUT', `/visual-plans/${plan.id}/document`, {
    base_version: plan.version,
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'ask', type: 'voice_menu', position: { x: 0, y: 100 }, data: { voice_text: 'Pick one.', options: [{ digits: '1', label: 'One' }] } },
    ],
    edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'ask' }],
  }, user.token);

  const client = await connectSimulator(`http://127.0.0.1:${port}`, plan.id, user.token);
  const started = await client.turn({ type: 'start', channel: 'voice' });
  const sessionId = started.find((frame) => frame.type === 'started')!.session_id as string;
  child.kill('SIGTERM');
  await client.closed;
  expect(await exited).toBe(0);

  const database = openDatabase(config);
  cleanups.push(() => database.close());
  const report = await database.db.selectFrom('call_reports').select(['hangup_cause', 'disposition', 'is_test']).where('session_id', '=', sessionId).executeTakeFirst();
  expect(report).toEqual({ hangup_cause: 'caller_hangup', disposition: 'abandoned', is_test: 1 });
});
