import type { AuditEntry } from '@voxplan/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { takeDatabaseAway } from './database-away.ts';
import { errorOf, q } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { adminToken, agiHasty, asterisk, finishedCall, HASTY_DEADLINE_MS, member, NUMBER, OPEN_NUMBER, pbxCall, PRESS_1, reportCount, server, unlisted, useAgiServer } from './asterisk-agi-fixture.ts';

/**
 * Calls from Asterisk over FastAGI (issue 19), continued from asterisk-agi.test.ts: the
 * access-control list, peers that are not well-behaved Asterisks, the database faltering, and the
 * plan's language.
 */

useAgiServer();

describe('the access-control list', () => {
  const auditOf = async (tenantId: number) => {
    const response = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'agi_call', tenant_id: tenantId } })}`, token: adminToken });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<AuditEntry[]>();
  };

  // An address outside the list, from a real Asterisk: asterisk-real.test.ts.
  test('a tenant without entries accepts none', async () => {
    const call = pbxCall({ agi_network_script: OPEN_NUMBER }, asterisk());
    await call.closed;
    expect(call.commands).toEqual([]);
    expect(await reportCount(unlisted.token)).toBe(0);
    expect(await auditOf(unlisted.tenantId)).toHaveLength(1);
  });

  test('a number no tenant has on Asterisk: closed, nothing runs', async () => {
    const call = pbxCall({ agi_network_script: '+559999999999' }, asterisk());
    await call.closed;
    expect(call.commands).toEqual([]);
  });
});

describe('peers that are not well-behaved Asterisks', () => {
  test('one that never sends its variables is closed after the time limit, and calls go on meanwhile', async () => {
    const silent = pbxCall({}, asterisk(), { raw: '' });
    const before = await reportCount(member.token);
    const report = await finishedCall(pbxCall({ agi_network_script: NUMBER }, asterisk()), member.token, before);
    expect(report.provider).toBe('asterisk');
    await silent.closed;
    expect(silent.commands).toEqual([]);
  });

  test('one that sends what is not AGI is closed at once', async () => {
    const http = pbxCall({}, asterisk(), { raw: 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' });
    await http.closed;
    expect(http.commands).toEqual([]);
  });

  test('one that goes quiet in the middle of a call: the session ends after the command’s time limit', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^EXEC MixMonitor/, 'silence']]));
    const report = await finishedCall(call, member.token, before);
    expect(report.hangup_cause).toBe('caller_hangup');
    expect(call.commands.at(-1)).toMatch(/^EXEC MixMonitor/);
  });

  test('an answer that is not AGI ends the call', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^ANSWER/, 'HTTP/1.1 400 Bad Request']]));
    const report = await finishedCall(call, member.token, before);
    expect(report.hangup_cause).toBe('caller_hangup');
  });
});

describe('when the database falters (docs/channels-asterisk.md)', () => {
  const UNAVAILABLE = 'This service is not available right now. Please call again later. Goodbye.';
  /** What the caller heard: the texts spoken, in order. */
  const spoken = (commands: string[]) => commands.filter((command) => command.startsWith('STREAM FILE')).map((command) => new URL(/^STREAM FILE "([^"]+)"/.exec(command)![1]!).searchParams.get('text'));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Makes `ctx.sessions[name]` wait `ms` before it runs, when `when` says so, until the test ends. */
  function slowDown(name: 'start' | 'handleTurn', ms: number, when: (...args: unknown[]) => boolean = () => true): () => void {
    const sessions = server.ctx.sessions as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = sessions[name]!;
    sessions[name] = async (...args: unknown[]) => {
      if (when(...args)) await sleep(ms);
      return original.apply(server.ctx.sessions, args);
    };
    return () => {
      sessions[name] = original;
    };
  }

  test('the database away: the caller hears "not available right now" and the PBX hangs up; that message is spoken without the database', async () => {
    const before = await reportCount(member.token);
    const bringBack = takeDatabaseAway(server.ctx.dialect);
    try {
      const call = pbxCall({ agi_network_script: NUMBER }, asterisk());
      await call.closed;
      expect(call.commands[0]).toBe('ANSWER');
      expect(spoken(call.commands)).toEqual([UNAVAILABLE]);
      expect(call.commands.at(-1)).toMatch(/^EXEC Hangup /);
      // The PBX fetches the message while the database is still away.
      const url = new URL(/"([^"]+)"/.exec(call.commands[1]!)![1]!);
      const speech = await server.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
      expect(speech.statusCode, speech.body).toBe(200);
      expect(speech.headers['content-type']).toBe('audio/wav');
    } finally {
      bringBack();
    }
    expect(await reportCount(member.token)).toBe(before);
  });

  test('a start past the deadline: the caller hears "not available right now", the PBX hangs up, and the session it started is ended', async () => {
    const before = await reportCount(member.token);
    const restore = slowDown('start', HASTY_DEADLINE_MS + 500);
    try {
      const call = pbxCall({ agi_network_script: NUMBER }, asterisk(), { listener: agiHasty });
      await call.closed;
      expect(spoken(call.commands)).toEqual([UNAVAILABLE]);
      expect(call.commands.at(-1)).toMatch(/^EXEC Hangup /);
      // The start went on and committed after the answer: its session is ended, not left waiting.
      const report = await finishedCall(call, member.token, before);
      expect(report.hangup_cause).toBe('caller_hangup');
      // The start's own turn (up to the menu) is in its report; nothing the caller did after it.
      expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'hours', 'welcome', 'rec', 'menu']);
      expect(report.pressed_digits).toEqual([]);
    } finally {
      restore();
    }
  });

  test('a turn past the deadline: the caller hears "not available right now" after the menu, and the session is ended once the turn is done', async () => {
    const before = await reportCount(member.token);
    const restore = slowDown('handleTurn', HASTY_DEADLINE_MS + 500, (_id, eventId) => String(eventId).startsWith('gather:'));
    try {
      const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^STREAM FILE .*For\+sales/, PRESS_1]]), { listener: agiHasty });
      await call.closed;
      expect(spoken(call.commands).at(-1)).toBe(UNAVAILABLE);
      expect(spoken(call.commands)).toContainEqual(expect.stringMatching(/^For sales/));
      expect(call.commands.at(-1)).toMatch(/^EXEC Hangup /);
      expect(call.commands.some((command) => command.startsWith('EXEC Dial'))).toBe(false);
      const report = await finishedCall(call, member.token, before);
      expect(report.hangup_cause).toBe('caller_hangup');
      expect(report.pressed_digits).toEqual([expect.objectContaining({ node_id: 'menu', digits: '1' })]);
    } finally {
      restore();
    }
  });
});

describe('the plan’s language', () => {
  const PORTUGUESE_NUMBER = '+551130002800';

  beforeAll(async () => {
    const plan = await storePlan(server.ctx, member.tenantId, {
      name: 'Portuguese welcome',
      format_version: 1,
      settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '', language: 'pt-BR', tts_voice: 'f2' },
      nodes: [
        planNode('start', 'start'),
        planNode('welcome', 'play_message', { voice_text: 'Olá, bem-vindo.' }),
        planNode('abroad', 'play_message', { voice_text: 'Hello.', language: 'en-US' }),
        planNode('bye', 'hangup', { cause: 'normal_clearing' }),
      ],
      edges: [planEdge('start', 'next', 'welcome'), planEdge('welcome', 'next', 'abroad'), planEdge('abroad', 'next', 'bye')],
    });
    const created = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: PORTUGUESE_NUMBER, provider: 'asterisk', voice_plan_id: plan } });
    expect(created.statusCode, created.body).toBe(201);
  });

  test('prompts are spoken at the speech URL in the plan’s language and espeak-ng voice; a block in English in English', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: PORTUGUESE_NUMBER }, asterisk());
    await finishedCall(call, member.token, before);
    const urls = call.commands.filter((command) => command.startsWith('STREAM FILE')).map((command) => new URL(/^STREAM FILE "([^"]+)"/.exec(command)![1]!));
    expect(urls.map((url) => [url.searchParams.get('lang'), url.searchParams.get('voice'), url.searchParams.get('text')])).toEqual([
      ['pt-BR', 'f2', 'Olá, bem-vindo.'],
      ['en-US', null, 'Hello.'],
    ]);

    // The PBX fetches it: spoken by espeak-ng, 8 kHz telephony WAV. Another voice is another URL, not this one's signature.
    const spoken = await server.app.inject({ method: 'GET', url: `${urls[0]!.pathname}${urls[0]!.search}` });
    expect(spoken.statusCode, spoken.body).toBe(200);
    expect(spoken.headers['content-type']).toBe('audio/wav');
    const otherVoice = new URL(urls[0]!);
    otherVoice.searchParams.set('voice', 'm1');
    const refused = await server.app.inject({ method: 'GET', url: `${otherVoice.pathname}${otherVoice.search}` });
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).code).toBe('invalid_media_signature');
  });
});
