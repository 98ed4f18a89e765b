import { simulatorSignInEndedCode } from '@voxplan/contracts/simulator';
import { describe, expect, test } from 'vitest';
import { shortLivedToken } from './harness.ts';
import { describeFrames } from './simulator-client.ts';
import { member, open, plans, releaseSlow, reportOf, server, sessionIdOf, slowRequests, useSimulatorServer } from './simulator-fixture.ts';

/**
 * The simulator API (issue 5, item 6) over a real WebSocket on a listening server: draft and
 * published plans as voice calls and chats, frames streamed while a block still waits on a remote
 * server, test sessions and their reports, and sessions ended when the panel restarts or goes away.
 * Refusals before and after the upgrade are in simulator-refusals.test.ts.
 */

useSimulatorServer();

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
