import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import { type SimulatorClientFrame, type SimulatorServerFrame, simulatorSignInEndedCode } from '@voxplan/contracts/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, q, shortLivedToken, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { connectSimulator, describeFrames } from './simulator-client.ts';

/**
 * The simulator API (issue 5, item 6) over a real WebSocket on a listening server: draft and
 * published plans as voice calls and chats, frames streamed while a block still waits on a remote
 * server, test sessions and their reports, refusals before and after the upgrade, and sessions
 * ended when the panel restarts or goes away.
 */

let server: TestServer;
let baseUrl: string;
let admin: string;
let member: TenantMember;
let guest: TenantMember;
let outsider: TenantMember;
let destinationId: number;
const plans = { frontLine: 0, slow: 0, unpublished: 0, hours: 0 };

/** A remote service whose answer the test releases by hand. */
let remote: http.Server;
let remoteUrl: string;
let releaseSlow: (() => void) | null = null;
let slowRequests = 0;

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

function frontLine(menuText: string) {
  return {
    settings: { session_timeout_min: 10, chat_text: 'Closing this idle chat.', sync_with_voice_text: false, webhook: '' },
    nodes: [
      node('start', 'start', { hangup_chat_message: 'Thanks for writing.' }),
      node('menu', 'voice_menu', {
        voice_text: menuText,
        chat_text: `${menuText} (chat)`,
        options: [{ digits: '1', label: 'Sales' }],
        max_retries: 1,
        invalid_text: 'Sorry, no such option.',
      }),
      node('sales', 'destination', { destination_id: destinationId }),
      node('bye', 'play_message', { voice_text: 'Goodbye', chat_text: 'Bye!' }),
    ],
    edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'sales'), edge('menu', 'timeout', 'bye'), edge('menu', 'invalid', 'bye'), edge('sales', 'busy', 'bye')],
  };
}

async function createPlan(token: string, name: string, document: object, publish: boolean): Promise<number> {
  const created = await server.call({ method: 'POST', url: '/visual-plans', token, payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: number }>().id;
  const saved = await server.call({ method: 'PUT', url: `/visual-plans/${id}/document`, token, payload: { base_version: 1, ...document } });
  expect(saved.statusCode, saved.body).toBe(200);
  if (publish) {
    const published = await server.call({ method: 'POST', url: `/visual-plans/${id}/publish`, token, payload: { base_version: 2 } });
    expect(published.statusCode, published.body).toBe(200);
  }
  return id;
}

async function reportOf(sessionId: string, where: Record<string, unknown> = {}): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, ...where } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

const open = (planId = plans.frontLine, token = member.token, options: Parameters<typeof connectSimulator>[3] = {}) => connectSimulator(baseUrl, planId, token, options);
const sessionIdOf = (frames: SimulatorServerFrame[]) => frames.find((frame) => frame.type === 'started')!.session_id as string;

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  admin = await server.login();
  member = await createTenantMember(server, admin, 'simulation');
  outsider = await createTenantMember(server, admin, 'elsewhere');
  const guestUser = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: 'sim-guest', password: 'sim-guest-password', email: 'sim-guest@example.com', name: 'Guest', roles: [{ role: 'guest', tenant_id: member.tenantId }] },
  });
  expect(guestUser.statusCode, guestUser.body).toBe(201);
  guest = { ...member, token: await server.login('sim-guest', 'sim-guest-password') };

  remote = http.createServer((request, response) => {
    slowRequests++;
    releaseSlow = () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ customer: 'Ana' }));
    };
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();

  const destination = await server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example.com' } });
  expect(destination.statusCode, destination.body).toBe(201);
  destinationId = destination.json<{ id: number }>().id;

  plans.frontLine = await createPlan(member.token, 'Front line', frontLine('Press 1 for sales.'), true);
  // The draft moves on from the published version.
  const draft = await server.call({ method: 'PUT', url: `/visual-plans/${plans.frontLine}/document`, token: member.token, payload: { base_version: 2, ...frontLine('Press 1 for our sales team.') } });
  expect(draft.statusCode, draft.body).toBe(200);

  plans.slow = await createPlan(
    member.token,
    'Slow lookup',
    {
      nodes: [
        node('start', 'start'),
        node('lookup', 'http_request', { method: 'GET', url: `${remoteUrl}/customer`, save: [{ variable: 'customer', path: '$.customer' }] }),
        node('hello', 'play_message', { voice_text: 'Hello {{customer}}', chat_text: 'Hello {{customer}}' }),
        node('menu', 'voice_menu', { voice_text: 'Press 1', options: [{ digits: '1', label: 'One' }] }),
      ],
      edges: [edge('start', 'next', 'lookup'), edge('lookup', 'success', 'hello'), edge('hello', 'next', 'menu')],
    },
    false,
  );
  plans.unpublished = await createPlan(member.token, 'Never published', frontLine('Draft only.'), false);

  // Open on Tuesdays 09:00 to 17:00 UTC only.
  const range = await server.call({ method: 'POST', url: '/date-ranges', token: member.token, payload: { name: 'Tuesday hours', time_zone: 'UTC', intervals: [{ day: 'tuesday', start: '09:00', end: '17:00' }] } });
  expect(range.statusCode, range.body).toBe(201);
  const say = (text: string) => ({ voice_text: text, chat_text: text });
  plans.hours = await createPlan(
    member.token,
    'Office hours',
    {
      nodes: [
        node('start', 'start'),
        node('hours', 'date_range', { date_range_id: range.json<{ id: number }>().id }),
        node('open', 'play_message', say('We are open')),
        node('closed', 'play_message', say('We are closed')),
        node('feast', 'play_message', say('Happy holiday')),
      ],
      edges: [edge('start', 'next', 'hours'), edge('hours', 'in_hours', 'open'), edge('hours', 'out_of_hours', 'closed'), edge('hours', 'holiday', 'feast')],
    },
    false,
  );
});

afterAll(async () => {
  await server.close();
  await new Promise((resolve) => remote.close(resolve));
});

describe('running a plan', () => {
  test('a voice call of the draft: blocks and actions in the order they happen, then the call is routed and reported as a test', async () => {
    const client = await open();
    const started = await client.turn({ type: 'start', channel: 'voice' });
    expect(describeFrames(started)).toEqual([
      'started voice draft',
      'node start',
      'exit start next',
      'node menu',
      'say Press 1 for our sales team.',
      'gather',
      'turn waiting',
    ]);
    const sessionId = sessionIdOf(started);
    const gather = started.find((frame) => frame.type === 'action' && frame.action.type === 'gather');
    expect(gather).toMatchObject({ event_id: 'start', action: { input: 'dtmf', max_digits: 1, timeout_s: 5 } });

    expect(describeFrames(await client.turn({ type: 'digits', id: 'k1', digits: '1' }))).toEqual(['exit menu 1', 'node sales', 'dial sip:sales@pbx.example.com', 'turn waiting']);
    const answered = await client.turn({ type: 'dial_result', id: 'd1', status: 'answer' });
    expect(describeFrames(answered)).toEqual(['exit sales answer', 'hangup normal_clearing', 'ended routed', 'turn ended']);
    const ended = answered.find((frame) => frame.type === 'ended')!;
    expect(ended.report).toMatchObject({
      session_id: sessionId,
      plan_id: plans.frontLine,
      plan_name: 'Front line',
      plan_version: 3,
      provider: 'simulator',
      channel: 'voice',
      disposition: 'routed',
      dial_status: 'answer',
      is_test: true,
      last_node_id: 'sales',
      pressed_digits: [{ node_id: 'menu', digits: '1' }],
    });
    expect(ended.report.source_ip).toBe('127.0.0.1');
    // Test sessions stay out of the reports unless asked for.
    expect(await reportOf(sessionId)).toEqual([]);
    expect(await reportOf(sessionId, { is_test: true })).toMatchObject([{ id: ended.report.id, disposition: 'routed' }]);
    // A frame after the end has no session to go to.
    client.send({ type: 'digits', id: 'late', digits: '2' });
    expect((await client.waitFor('error')).error).toMatchObject({ statusCode: 404, code: 'session_not_found' });
    await client.close();
  });

  test('a chat of the published version runs what calls run, not the draft', async () => {
    const client = await open();
    const frames = await client.turn({ type: 'start', channel: 'chat', version: 'published', caller: 'visitor-7' });
    expect(describeFrames(frames)).toEqual(['started chat published', 'node start', 'exit start next', 'node menu', 'reply Press 1 for sales. (chat)', 'turn waiting']);
    const menu = frames.find((frame) => frame.type === 'action')!;
    expect(menu).toMatchObject({ action: { type: 'reply', options: [{ id: '1', label: 'Sales' }] } });
    expect(describeFrames(await client.turn({ type: 'message', id: 'm1', text: 'what?' }))).toEqual([
      'reply Sorry, no such option.',
      'reply Press 1 for sales. (chat)',
      'turn waiting',
    ]);
    const reply = await client.turn({ type: 'message', id: 'm2', text: 'still what?' });
    expect(describeFrames(reply)).toEqual([
      'exit menu invalid',
      'node bye',
      'reply Bye!',
      'exit bye next',
      'reply Thanks for writing.',
      'hangup normal_clearing',
      'ended retained',
      'turn ended',
    ]);
    const report = reply.find((frame) => frame.type === 'ended')!.report;
    expect(report).toMatchObject({ plan_version: 2, caller: 'visitor-7', channel: 'chat', is_test: true });
    await client.close();
  });

  test('a published version named by its number runs that version, not the draft', async () => {
    const client = await open();
    const frames = await client.turn({ type: 'start', channel: 'voice', version: 2, start_node: 'menu' });
    expect(describeFrames(frames)).toEqual(['started voice 2', 'node menu', 'say Press 1 for sales.', 'gather', 'turn waiting']);
    expect((await server.ctx.sessions.find(sessionIdOf(frames)))!.session).toMatchObject({ plan_version: 2 });
    await client.close();
  });

  test('variables given at the start reach the plan', async () => {
    const client = await open();
    await client.turn({ type: 'start', channel: 'voice', variables: { customer: 'Bia', vip: true } });
    const sessionId = (await client.frames.find((frame) => frame.type === 'started'))!.session_id as string;
    expect((await server.ctx.sessions.find(sessionId))!.session.variables).toMatchObject({ customer: 'Bia', vip: true });
    await client.close();
  });

  test('a run started at a chosen block enters it first, and goes on from there as any run', async () => {
    const client = await open();
    const started = await client.turn({ type: 'start', channel: 'voice', start_node: 'menu' });
    expect(describeFrames(started)).toEqual(['started voice draft', 'node menu', 'say Press 1 for our sales team.', 'gather', 'turn waiting']);
    expect(describeFrames(await client.turn({ type: 'digits', id: 'k1', digits: '1' }))).toEqual(['exit menu 1', 'node sales', 'dial sip:sales@pbx.example.com', 'turn waiting']);
    const stored = (await server.ctx.sessions.find(sessionIdOf(started)))!.session;
    expect(stored.path.map((entry) => entry.node_id)).toEqual(['menu', 'sales']);
    // The published version runs from a chosen block too.
    const published = await client.turn({ type: 'start', channel: 'chat', version: 'published', start_node: 'bye' });
    expect(describeFrames(published).slice(2)).toEqual(['started chat published', 'node bye', 'reply Bye!', 'exit bye next', 'reply Thanks for writing.', 'hangup normal_clearing', 'ended retained', 'turn ended']);
    await client.close();
  });

  test('a run "as if" at a chosen time, or on a holiday, takes that branch of a date range; the tenant\'s ranges and holidays are left as they were', async () => {
    const holidays = async () => (await server.call({ method: 'GET', url: '/holidays', token: member.token })).body;
    const ranges = async () => (await server.call({ method: 'GET', url: '/date-ranges', token: member.token })).body;
    const [holidaysBefore, rangesBefore] = [await holidays(), await ranges()];
    const client = await open(plans.hours);
    const said = async (asIf: Record<string, unknown>) => {
      const frames = await client.turn({ type: 'start', channel: 'voice', as_if: asIf });
      return { frames: describeFrames(frames), started: frames.find((frame) => frame.type === 'started') };
    };
    // 2030-01-08 is a Tuesday.
    const open10 = await said({ at: '2030-01-08T10:00:00Z' });
    expect(open10.frames).toContain('say We are open');
    expect(open10.started).toMatchObject({ as_if: { at: '2030-01-08T10:00:00.000Z', holiday: false } });
    // An offset is read as the instant it names: 22:00 at -03:00 is 01:00 UTC on the Wednesday.
    expect((await said({ at: '2030-01-08T22:00:00-03:00' })).frames).toContain('say We are closed');
    const feast = await said({ at: '2030-01-08T10:00:00Z', holiday: true });
    expect(feast.frames).toContain('say Happy holiday');
    expect(feast.started).toMatchObject({ as_if: { at: '2030-01-08T10:00:00.000Z', holiday: true } });
    // The session keeps its clock for the turns to come, as an offset from the real time.
    const stored = (await server.ctx.sessions.find(feast.started!.type === 'started' ? feast.started!.session_id : ''))!.session;
    expect(stored.schedule_clock?.holiday).toBe(true);
    // Without `as_if` no clock is kept: the real time decides.
    const plain = await client.turn({ type: 'start', channel: 'voice' });
    expect(plain.find((frame) => frame.type === 'started')).not.toHaveProperty('as_if');
    expect((await server.ctx.sessions.find(sessionIdOf(plain)))!.session).not.toHaveProperty('schedule_clock');
    await client.close();
    expect([await holidays(), await ranges()]).toEqual([holidaysBefore, rangesBefore]);
  });

  test('a block that waits on a remote server shows as entered before the server answers', async () => {
    const client = await open(plans.slow);
    const before = slowRequests;
    client.send({ type: 'start', channel: 'voice' });
    await client.waitFor('node', (frame) => frame.node.node_id === 'lookup');
    // The request is under way and unanswered: the panel already shows where the call is.
    await expect.poll(() => slowRequests).toBe(before + 1);
    expect(client.frames.some((frame) => frame.type === 'turn')).toBe(false);
    releaseSlow!();
    await client.waitFor('turn', (frame) => frame.event_id === 'start');
    expect(describeFrames(client.frames)).toEqual([
      'started voice draft',
      'node start',
      'exit start next',
      'node lookup',
      'exit lookup success',
      'node hello',
      'say Hello Ana',
      'exit hello next',
      'node menu',
      'say Press 1',
      'gather',
      'turn waiting',
    ]);
    await client.close();
  });

  test('the same frame id twice is applied once', async () => {
    const client = await open();
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    const once = await client.turn({ type: 'digits', id: 'same', digits: '7' });
    expect(describeFrames(once)).toEqual(['say Sorry, no such option.', 'say Press 1 for our sales team.', 'gather', 'turn waiting']);
    const twice = await client.turn({ type: 'digits', id: 'same', digits: '7' });
    expect(describeFrames(twice)).toEqual(['turn waiting duplicate']);
    expect(twice[0]).toMatchObject({ revision: 2 });
    const events = await server.ctx.db.selectFrom('session_events').select('event_id').where('session_id', '=', sessionId).execute();
    expect(events.map((row) => row.event_id).sort()).toEqual(['frame:same', 'start']);
    // Only one retry was used up: the next wrong key leaves the menu.
    expect(describeFrames(await client.turn({ type: 'digits', id: 'other', digits: '8' }))[0]).toBe('exit menu invalid');
    await client.close();
  });
});

describe('ending what the panel leaves', () => {
  test('starting again hangs up the session still running', async () => {
    const client = await open();
    const first = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    const restart = await client.turn({ type: 'start', channel: 'chat' });
    expect(describeFrames(restart).slice(0, 2)).toEqual(['ended abandoned', 'turn ended']);
    expect(restart[1]).toMatchObject({ type: 'turn', session_id: first, event_id: 'simulator:restart' });
    const second = sessionIdOf(restart);
    expect(second).not.toBe(first);
    expect((await server.ctx.sessions.find(first))!.session).toMatchObject({ status: 'ended', hangup_cause: 'caller_hangup' });
    await client.close();
  });

  test('closing the socket hangs up its session, so no test call is left waiting', async () => {
    const client = await open();
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    await client.close();
    await expect.poll(async () => (await server.ctx.sessions.find(sessionId))?.session.hangup_cause).toBe('caller_hangup');
    expect(await reportOf(sessionId, { is_test: true })).toMatchObject([{ disposition: 'abandoned', provider: 'simulator' }]);
  });

  test('signing out closes the sockets of that sign-in (code 4401, sign_in_ended) and hangs their sessions up; another sign-in keeps its own', async () => {
    const token = await server.login(member.username, member.password);
    const client = await open(plans.frontLine, token, { tokenIn: 'protocol' });
    const other = await open();
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    expect((await server.call({ method: 'POST', url: '/logout', token })).statusCode).toBe(204);
    expect(await client.closed).toBe(simulatorSignInEndedCode);
    expect(client.socket.readyState).toBe(client.socket.CLOSED);
    await expect.poll(async () => (await server.ctx.sessions.find(sessionId))?.session.hangup_cause).toBe('caller_hangup');
    expect(describeFrames(await other.turn({ type: 'start', channel: 'chat' }))[0]).toBe('started chat draft');
    await other.close();
  });

  test('a socket closes when its access token expires, with the reason token_expired', async () => {
    const client = await open(plans.frontLine, shortLivedToken(server.ctx, member.token, 2));
    const reason = new Promise<string>((resolve) => client.socket.once('close', (_code, text) => resolve(text.toString())));
    expect(await client.closed).toBe(simulatorSignInEndedCode);
    expect(await reason).toBe('token_expired');
  });

  test("a chat left idle is ended by the sweeper, and the panel is told what the plan said", async () => {
    const client = await open();
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'chat' }));
    await server.ctx.db.updateTable('sessions').set({ timeout_time: '2000-01-01T00:00:00.000Z' }).where('id', '=', sessionId).execute();
    expect(await server.ctx.sessions.sweepTimeouts()).toContain(sessionId);
    await client.waitFor('ended', (frame) => frame.session_id === sessionId);
    expect(describeFrames(client.frames).slice(-4)).toEqual(['reply Closing this idle chat.', 'hangup session_timeout', 'ended abandoned', 'turn ended']);
    await client.close();
  });
});

describe('refusals', () => {
  test('a frame that is not JSON, of an unknown type, or with bad fields is refused with the catalogue code; the socket goes on', async () => {
    const client = await open(plans.frontLine, member.token, { headers: { 'accept-language': 'pt-BR' } });
    client.send('not json');
    expect((await client.waitFor('error')).error).toMatchObject({ statusCode: 400, code: 'invalid_input', message: 'Alguns campos são inválidos.' });
    client.send({ type: 'dance', id: 'x' });
    expect(await client.waitFor('error')).toMatchObject({ event_id: 'x', error: { code: 'invalid_input' } });
    client.send({ type: 'digits', id: 'k', digits: 'abc' });
    const bad = await client.waitFor('error');
    expect(bad.event_id).toBe('k');
    expect(bad.error.details).toContainEqual(expect.objectContaining({ path: 'digits' }));
    client.send({ type: 'start', channel: 'fax' });
    expect((await client.waitFor('error')).error.details).toContainEqual(expect.objectContaining({ path: 'channel' }));
    client.send({ type: 'digits', id: 'early', digits: '1' });
    expect(await client.waitFor('error')).toMatchObject({ event_id: 'early', error: { statusCode: 404, code: 'session_not_found' } });
    // Still usable.
    expect(describeFrames(await client.turn({ type: 'start', channel: 'voice' })).at(-1)).toBe('turn waiting');
    await client.close();
  });

  test.each<[string, keyof typeof plans, SimulatorClientFrame, string, string, string]>([
    [
      'the published version of a plan never published',
      'unpublished',
      { type: 'start', channel: 'voice', version: 'published' },
      'plan_not_published',
      'This plan has no published version yet: publish it, or run the draft.',
      'Este plano ainda não tem versão publicada: publique-o ou execute o rascunho.',
    ],
    [
      'a version never published (the draft\'s number)',
      'frontLine',
      { type: 'start', channel: 'voice', version: 3 },
      'plan_version_not_found',
      'This plan has no published version with this number.',
      'Este plano não tem versão publicada com este número.',
    ],
    [
      'a block the plan does not have',
      'frontLine',
      { type: 'start', channel: 'voice', start_node: 'nowhere' },
      'start_node_not_found',
      'This block is not in the plan version being run: save the plan, or choose another block.',
      'Este bloco não está na versão do plano em execução: salve o plano ou escolha outro bloco.',
    ],
  ])('a start of %s is refused in the language asked, and starts nothing', async (_, plan, frame, code, english, portuguese) => {
    for (const [language, message] of [
      ['en', english],
      ['pt-BR', portuguese],
    ] as const) {
      const client = await open(plans[plan], member.token, { headers: { 'accept-language': language } });
      client.send(frame);
      expect(await client.waitFor('error')).toMatchObject({ event_id: 'start', error: { statusCode: 400, code, message } });
      expect(client.frames.some((sent) => sent.type === 'started' || sent.type === 'node')).toBe(false);
      await client.close();
    }
  });

  test('a start at a block names the field when refused: a block not in the plan, or no block id at all', async () => {
    const client = await open();
    client.send({ type: 'start', channel: 'voice', start_node: 'nowhere' });
    expect((await client.waitFor('error')).error).toMatchObject({ code: 'start_node_not_found', details: [expect.objectContaining({ path: 'start_node' })] });
    client.send({ type: 'start', channel: 'voice', start_node: 'not an id!' });
    expect((await client.waitFor('error')).error).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path: 'start_node' })] });
    await client.close();
  });

  test('an "as if" time must be an instant with its offset, and the holiday a boolean; only a test session runs as if', async () => {
    const client = await open(plans.hours);
    for (const [asIf, path] of [
      [{ at: 'next tuesday' }, 'as_if.at'],
      [{ at: '2030-01-08T10:00:00' }, 'as_if.at'],
      [{ holiday: 'yes' }, 'as_if.holiday'],
      [{ at: '2030-01-08T10:00:00Z', when: 'now' }, 'as_if.when'],
    ] as const) {
      client.send({ type: 'start', channel: 'voice', as_if: asIf });
      expect((await client.waitFor('error')).error, JSON.stringify(asIf)).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path })] });
    }
    expect(client.frames.some((frame) => frame.type === 'started')).toBe(false);
    await client.close();
    const request = { tenant_id: member.tenantId, plan_id: plans.hours, channel: 'voice', provider: 'twilio', caller: '+15550000001', called: '+15550000002' } as const;
    await expect(server.ctx.sessions.start({ ...request, is_test: false, schedule_clock: { offset_ms: 3_600_000, holiday: true } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_input',
      details: [expect.objectContaining({ path: 'schedule_clock' })],
    });
  });

  test('only a test session begins elsewhere than the start block', async () => {
    const request = { tenant_id: member.tenantId, plan_id: plans.frontLine, channel: 'voice', provider: 'twilio', caller: '+15550000001', called: '+15550000002', start_node: 'menu' } as const;
    await expect(server.ctx.sessions.start({ ...request, is_test: false })).rejects.toMatchObject({ statusCode: 400, code: 'invalid_input' });
  });

  test('before the upgrade: no token, a bad token, a guest and another tenant are answered over HTTP', async () => {
    const refusal = (promise: Promise<unknown>) => promise.then(() => ({ statusCode: 101, code: 'upgraded' }), (error: { statusCode: number; body: string }) => ({ statusCode: error.statusCode, code: (JSON.parse(error.body) as { error: { code: string } }).error.code }));
    expect(await refusal(open(plans.frontLine, '', { headers: { authorization: '' } }))).toEqual({ statusCode: 401, code: 'auth_header_not_found' });
    expect(await refusal(open(plans.frontLine, 'not-a-token'))).toEqual({ statusCode: 401, code: 'verifying_token_error' });
    expect(await refusal(open(plans.frontLine, guest.token))).toEqual({ statusCode: 403, code: 'readonly_only' });
    expect(await refusal(open(plans.frontLine, outsider.token))).toEqual({ statusCode: 404, code: 'not_found' });
    expect(await refusal(open(999_999))).toEqual({ statusCode: 404, code: 'not_found' });
  });

  test('an upgrade to any other path is answered 404 and closed, and runs nothing', async () => {
    const { port } = server.app.server.address() as AddressInfo;
    const upgradeTo = (method: string, path: string, body = '') =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        // Resolves only once the server closed the connection.
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.write(
          `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${member.token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
            `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
    const refused = await upgradeTo('GET', '/api/v1/health');
    expect(refused).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { statusCode: 404, code: 'not_found' } });
    expect(await upgradeTo('POST', '/api/v1/destinations', JSON.stringify({ name: 'Through an upgrade', kind: 'voice', uri: 'sip:x@pbx.example.com' }))).toMatch(/^HTTP\/1\.1 404 /);
    const created = await server.call({ method: 'GET', url: `/destinations?${q('filter', { where: { name: 'Through an upgrade' } })}`, token: member.token });
    expect(created.json()).toEqual([]);
  });

  test('a browser sends its token as a subprotocol, which is never echoed back', async () => {
    const client = await open(plans.frontLine, member.token, { tokenIn: 'protocol' });
    expect(client.socket.protocol).toBe('voxplan.simulator.v1');
    expect(describeFrames(await client.turn({ type: 'start', channel: 'chat' })).at(-1)).toBe('turn waiting');
    await client.close();
  });

  test('an administrator runs any tenant’s plan, in that tenant', async () => {
    const client = await open(plans.frontLine, admin);
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    expect((await server.ctx.sessions.find(sessionId))!.session.tenant_id).toBe(member.tenantId);
    await client.close();
  });

  test('a client that floods the socket while a turn runs is disconnected', async () => {
    const before = slowRequests;
    const client = await open(plans.slow);
    client.send({ type: 'start', channel: 'voice' });
    await client.waitFor('node', (frame) => frame.node.node_id === 'lookup');
    // The turn is under way (its request has reached the remote service) when the flood starts.
    await expect.poll(() => slowRequests).toBe(before + 1);
    for (let i = 0; i < 40; i++) client.send({ type: 'digits', id: `flood-${i}`, digits: '1' });
    expect(await client.closed).toBe(1008);
    releaseSlow!();
  });
});

describe('the simulator in the API description', () => {
  test('the OpenAPI document lists the simulator route; a plain GET is told to upgrade', async () => {
    const document = (await server.call({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: { description?: string } }> }>();
    expect(document.paths['/api/v1/visual-plans/{id}/simulator']?.get?.description).toContain('WebSocket');
    const plain = await server.call({ method: 'GET', url: `/visual-plans/${plans.frontLine}/simulator`, token: member.token });
    expect(plain.statusCode).toBe(426);
    expect(plain.json()).toMatchObject({ error: { code: 'upgrade_required', name: 'UpgradeRequiredError' } });
  });
});
