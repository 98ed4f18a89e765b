/**
 * Calls from Asterisk over FastAGI (issue 19): a client here plays the PBX over TCP as Asterisk
 * 22 answers (res_agi.c, app_dial.c; checked against the real one in asterisk-real.test.ts): the
 * variables block, then each command answered with `200 result=…`; when the caller hangs up, the
 * command's `200 result=-1`, then a `HANGUP` line, and `511` to what may not run on a dead
 * channel. Only what a real PBX will not produce on demand is here: the exact command lines, the
 * dial statuses no Local channel gives, speech (no speech engine is built), a 511, the numbers
 * a request may name, and malformed or silent peers. asterisk-real.test.ts has the rest.
 */
import net from 'node:net';
import type { AuditEntry, CallReportRecord } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AgiConfig } from '../src/config.ts';
import { type AgiServer, calledCandidates, startAgiServer } from '../src/channels/asterisk/agi-server.ts';
import { takeDatabaseAway } from './database-away.ts';
import { createTenantMember, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, readFixture, storePlan } from './sessions-helpers.ts';

const PUBLIC_URL = 'https://voice.example.com';
const NUMBER = '+551130000100';
const OPEN_NUMBER = '+551130000300';
const SPEECH_NUMBER = '+551130000400';
/** A welcome over 250 characters: spoken in two parts (each AGI command fits Asterisk's line). */
const LONG_WELCOME = `Welcome to Acme. ${'Our lines are open from eight to eight, every day of the week. '.repeat(4)}Thank you.`;
const CALLER = '5511988887777';

const agiConfig: AgiConfig = {
  port: 0,
  host: '127.0.0.1',
  sipEndpoint: 'voxplan',
  dialContext: 'from-voxplan',
  recordingUrl: 'https://pbx.acme.example/recordings/{file}',
  recordingDir: undefined,
  speechEngine: undefined,
};

let server: TestServer;
let agi: AgiServer;
/** The same server's listener with a speech engine configured. */
let agiWithSpeech: AgiServer;
/** The same server's listener with a short deadline for a start or a turn (PROVIDER_HOOK_DEADLINE_MS). */
let agiHasty: AgiServer;
const HASTY_DEADLINE_MS = 300;
let member: TenantMember;
let unlisted: TenantMember;
let adminToken: string;

/** Answers a command line as Asterisk would; `'hangup'` answers -1, then sends the HANGUP line; `'silence'` answers nothing. */
type Responder = (command: string) => string | 'hangup' | 'silence';

interface PbxCall {
  commands: string[];
  /** The connection closed by the server, and when. */
  closed: Promise<void>;
}

/** A call as Asterisk places it on `agi://<server>/<script>`. */
function pbxCall(variables: Record<string, string>, respond: Responder, options: { raw?: string; listener?: AgiServer } = {}): PbxCall {
  const socket = net.connect((options.listener ?? agi).port, '127.0.0.1');
  const commands: string[] = [];
  let buffered = '';
  let hungUp = false;
  socket.setEncoding('utf8');
  socket.on('connect', () => {
    if (options.raw !== undefined) {
      socket.write(options.raw);
      return;
    }
    const block = {
      agi_network: 'yes',
      agi_request: `agi://127.0.0.1/${variables.agi_network_script ?? ''}`,
      agi_channel: 'PJSIP/trunk-00000001',
      agi_language: 'en',
      agi_type: 'PJSIP',
      agi_uniqueid: `1764000000.${Math.floor(Math.random() * 1e6)}`,
      agi_version: '20.5.0',
      agi_callerid: CALLER,
      agi_calleridname: 'Maria',
      agi_dnid: 'unknown',
      agi_context: 'from-trunk',
      agi_extension: 's',
      agi_priority: '1',
      agi_enhanced: '0.0',
      agi_accountcode: '',
      agi_threadid: '140000000000',
      ...variables,
    };
    socket.write(`${Object.entries(block).map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n`);
  });
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const command = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      commands.push(command);
      // A hung-up channel runs only the commands marked to run dead (res_agi.c): not CHANNEL STATUS.
      const answer = hungUp && command === 'CHANNEL STATUS' ? DEAD_CHANNEL : respond(command);
      if (answer === 'hangup') {
        hungUp = true;
        socket.write('200 result=-1\nHANGUP\n');
      } else if (answer !== 'silence') socket.write(`${answer}\n`);
      newline = buffered.indexOf('\n');
    }
  });
  const closed = new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('end', () => socket.end());
  });
  socket.on('error', () => undefined);
  return { commands, closed };
}

const DEAD_CHANNEL = '511 Command Not Permitted on a dead channel or intercept routine';

/**
 * The usual answers: prompts play to their end, no key is pressed, the channel is up (state 6),
 * the dial is answered. Dial answers -1 when a bridged call ends, the caller still there.
 */
function asterisk(overrides: Array<[RegExp, string | 'hangup' | 'silence']> = []): Responder {
  return (command) => {
    for (const [pattern, answer] of overrides) if (pattern.test(command)) return answer;
    if (command.startsWith('EXEC Hangup') || command === 'HANGUP') return '200 result=-1';
    if (command.startsWith('STREAM FILE')) return '200 result=0 endpos=8000';
    if (command.startsWith('WAIT FOR DIGIT')) return '200 result=0';
    if (command === 'CHANNEL STATUS') return '200 result=6';
    if (command.startsWith('EXEC Dial')) return '200 result=-1';
    if (command === 'GET VARIABLE DIALSTATUS') return '200 result=1 (ANSWER)';
    return '200 result=0';
  };
}

const PRESS_1 = '200 result=49 endpos=1200';

async function reportsOf(token: string, where: Record<string, unknown>): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where, order: ['id ASC'] })}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

const lastReport = async (token = member.token) => (await reportsOf(token, { provider: 'asterisk' })).at(-1);

/** Waits until the server has ended the session it ran for this call and written its report. */
async function reportCount(token: string): Promise<number> {
  const response = await server.call({ method: 'GET', url: `/reports/count?${q('where', { provider: 'asterisk' })}`, token });
  return response.json<{ count: number }>().count;
}

async function finishedCall(call: PbxCall, token = member.token, before?: number): Promise<CallReportRecord> {
  await call.closed;
  const start = before ?? 0;
  for (let attempt = 0; attempt < 100 && (await reportCount(token)) <= start; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  const report = await lastReport(token);
  if (!report) throw new Error('no report');
  return report;
}

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_URL });
  adminToken = await server.login();
  member = await createTenantMember(server, adminToken, 'agi');
  unlisted = await createTenantMember(server, adminToken, 'agi-unlisted');

  const create = async (token: string, url: string, payload: Record<string, unknown>) => {
    const response = await server.call({ method: 'POST', url, token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: number }>().id;
  };
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  for (const [tenant, number, acl] of [
    [member, NUMBER, ['127.0.0.0/8', '2001:db8::/32']],
    [unlisted, OPEN_NUMBER, []],
  ] as const) {
    const desk = await create(tenant.token, '/destinations', { name: 'Sales desk', kind: 'voice', uri: 'sip:sales@pbx.acme.example' });
    const always = await create(tenant.token, '/date-ranges', { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) });
    const plan = await storePlan(server.ctx, tenant.tenantId, readFixture('front-desk'), { references: { destination: { 1: desk }, date_range: { 1: always } } });
    await create(tenant.token, '/numbers', { number, provider: 'asterisk', voice_plan_id: plan });
    for (const address of acl) await create(tenant.token, '/acl', { name: 'PBX', address });
  }
  // Speech detection asks for a name; with no AI key the answer cannot be understood: `failed` hangs up busy (17), `success` normally (16).
  const speechPlan = await storePlan(server.ctx, member.tenantId, {
    name: 'Speech',
    format_version: 1,
    settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '' },
    nodes: [
      planNode('start', 'start', { generate_protocol: false, ignore_call: false }),
      planNode('welcome', 'play_message', { text_to_speech: true, voice_text: LONG_WELCOME }),
      planNode('ask', 'speech_detection', { voice_text: 'Say your name.', variables: [{ name: 'name', description: 'the caller’s name' }], max_retries: 1, retry_text: 'Once more, please.', language: 'pt-BR' }),
      planNode('ok', 'hangup', { cause: 'normal_clearing' }),
      planNode('ko', 'hangup', { cause: 'busy' }),
    ],
    edges: [planEdge('start', 'next', 'welcome'), planEdge('welcome', 'next', 'ask'), planEdge('ask', 'success', 'ok'), planEdge('ask', 'failed', 'ko')],
  });
  await create(member.token, '/numbers', { number: SPEECH_NUMBER, provider: 'asterisk', voice_plan_id: speechPlan });
  const timeouts = { variablesTimeoutMs: 500, commandMarginMs: 500 };
  agi = await startAgiServer(server.ctx, agiConfig, server.app.log, timeouts);
  agiWithSpeech = await startAgiServer(server.ctx, { ...agiConfig, speechEngine: 'lumenvox' }, server.app.log, timeouts);
  agiHasty = await startAgiServer(server.ctx, agiConfig, server.app.log, { ...timeouts, deadlineMs: HASTY_DEADLINE_MS });
});

afterAll(async () => {
  await agi?.close(1000);
  await agiWithSpeech?.close(1000);
  await agiHasty?.close(1000);
  await server?.close();
});

describe('the number a request names', () => {
  test('the script of agi://host/<number>, URL-encoded or not, then the dialled number; a missing plus is tried', () => {
    expect(calledCandidates({ agi_network_script: '%2B551130000100' })).toEqual(['+551130000100']);
    expect(calledCandidates({ agi_network_script: '551130000100', agi_dnid: 'unknown', agi_extension: 's' })).toEqual(['+551130000100', '551130000100']);
    expect(calledCandidates({ agi_network_script: 'ivr', agi_dnid: '1130000100', agi_extension: '100' })).toEqual(['+1130000100', '1130000100', '+100', '100']);
  });
});

describe('a whole IVR over AGI', () => {
  test('answer, the welcome spoken, the recording, a key pressed during the menu, a busy destination, the end and its report', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: encodeURIComponent(NUMBER) }, asterisk([
      [/^STREAM FILE .*For%20sales|^STREAM FILE .*For\+sales/, PRESS_1],
      [/^EXEC Dial/, '200 result=0'],
      [/^GET VARIABLE DIALSTATUS/, '200 result=1 (BUSY)'],
    ]));
    const report = await finishedCall(call, member.token, before);
    const { commands } = call;
    expect(commands[0]).toBe('ANSWER');
    // The welcome, spoken by the server in a signed URL; the menu's prompt may be cut short by a key.
    expect(commands[1]).toMatch(/^STREAM FILE "https:\/\/voice\.example\.com\/api\/v1\/media\/speech\.wav\?lang=en-US&text=Welcome[^"]*" ""$/);
    // Asterisk cannot write MP3: the block's MP3 is recorded in WAV (converted on the server).
    expect(commands[2]).toMatch(/^EXEC MixMonitor "voxplan-[0-9a-f-]+\.wav"$/);
    expect(commands[3]).toMatch(/^STREAM FILE "[^"]*text=For\+sales[^"]*" "0123456789\*#"$/);
    expect(commands[4]).toBe('EXEC Dial "PJSIP/voxplan/sip:sales@pbx.acme.example,25"');
    expect(commands[5]).toBe('GET VARIABLE DIALSTATUS');
    expect(commands[6]).toMatch(/^STREAM FILE "[^"]*text=All\+our\+agents\+are\+busy/);
    expect(commands[7]).toBe('EXEC Hangup 16');
    expect(commands).toHaveLength(8);

    expect(report).toMatchObject({
      provider: 'asterisk',
      channel: 'voice',
      caller: CALLER,
      called: NUMBER,
      source_ip: '127.0.0.1',
      dial_status: 'busy',
      hangup_cause: 'normal_clearing',
      pressed_digits: [expect.objectContaining({ node_id: 'menu', digits: '1' })],
    });
    expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'hours', 'welcome', 'rec', 'menu', 'route', 'sales_phone', 'try_later', 'bye']);
    // MixMonitor's file comes back from where the PBX serves it, once the call is over (a turn after the report).
    const recordingUrl = `https://pbx.acme.example/recordings/${commands[2]!.slice('EXEC MixMonitor "'.length, -1)}`;
    await expect.poll(async () => (await reportsOf(member.token, { id: report.id }))[0]?.recording?.url, { timeout: 5000 }).toBe(recordingUrl);

    // The PBX fetches the spoken prompt from the URL it was given: a WAV, telephony format.
    const url = new URL(/"([^"]+)"/.exec(commands[1]!)![1]!);
    const speech = await server.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(speech.statusCode, speech.body).toBe(200);
    expect(speech.headers['content-type']).toBe('audio/wav');
    expect(speech.rawPayload.subarray(0, 4).toString()).toBe('RIFF');
    const tampered = await server.app.inject({ method: 'GET', url: `${url.pathname}${url.search.replace('Welcome', 'Goodbye')}` });
    expect(tampered.statusCode).toBe(403);
    expect(tampered.json<{ error: { code: string } }>().error.code).toBe('invalid_media_signature');
  });

  // ANSWER, BUSY and NOANSWER come from a real Asterisk in asterisk-real.test.ts.
  test.each([
    ['CANCEL', 'cancel', null],
    ['DONTCALL', 'dont_call', null],
    ['INVALIDARGS', 'invalid_args', null],
    ['CONGESTION', 'failed', null],
    ['CHANUNAVAIL', 'failed', null],
  ])('DIALSTATUS %s is the destination’s %s', async (dialStatus, expected, disposition) => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([
      [/^STREAM FILE .*For\+sales/, PRESS_1],
      [/^EXEC Dial/, '200 result=0'],
      [/^GET VARIABLE DIALSTATUS/, `200 result=1 (${dialStatus})`],
    ]));
    const report = await finishedCall(call, member.token, before);
    expect(report.dial_status).toBe(expected);
    if (disposition) expect(report.disposition).toBe(disposition);
  });

  test('an answered transfer: Dial answers -1 when the bridge ends, the caller still there (state 6): answered, routed', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^STREAM FILE .*For\+sales/, PRESS_1]]));
    const report = await finishedCall(call, member.token, before);
    const dial = call.commands.findIndex((command) => command.startsWith('EXEC Dial'));
    expect(call.commands.slice(dial + 1, dial + 3)).toEqual(['CHANNEL STATUS', 'GET VARIABLE DIALSTATUS']);
    expect(report).toMatchObject({ dial_status: 'answer', disposition: 'routed', hangup_cause: 'normal_clearing' });
    // The destination's answer exit is not connected in this plan: the session ends, and the call is hung up.
    expect(call.commands.at(-1)).toMatch(/^EXEC Hangup|^HANGUP$/);
  });

  test('the caller hangs up during an answered transfer: Dial -1, then HANGUP: still answered and routed, nothing sent after', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^STREAM FILE .*For\+sales/, PRESS_1], [/^EXEC Dial/, 'hangup']]));
    const report = await finishedCall(call, member.token, before);
    // The answer exit is not connected in this plan: that ends the session in the dial's own turn.
    expect(report).toMatchObject({ dial_status: 'answer', disposition: 'routed', hangup_cause: 'normal_clearing' });
    // DIALSTATUS is read on the dead channel; nothing else is sent to it.
    expect(call.commands.at(-1)).toBe('GET VARIABLE DIALSTATUS');
  });
});

describe('speech', () => {
  test('with a speech engine: every prompt before the gather is played, SPEECH CREATE once, the block’s language with SPEECH SET, SPEECH RECOGNIZE on the last prompt', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall(
      { agi_network_script: SPEECH_NUMBER },
      asterisk([
        [/^SPEECH CREATE/, '200 result=1'],
        [/^SPEECH SET/, '200 result=1'],
        [/^SPEECH RECOGNIZE/, '200 result=1 (speech) endpos=2400 results=1 score0=910 text0="my name is Ana" grammar0=default'],
      ]),
      { listener: agiWithSpeech },
    );
    const report = await finishedCall(call, member.token, before);
    expect(call.commands[0]).toBe('ANSWER');
    // The welcome, in its two parts, then the speech object, its language, and the block's prompt under the recogniser.
    expect(call.commands.slice(1, 6)).toEqual([
      expect.stringMatching(/^STREAM FILE "[^"]*text=Welcome\+to\+Acme\.[^"]*" ""$/),
      expect.stringMatching(/^STREAM FILE "[^"]*text=[^"]*Thank\+you\.[^"]*" ""$/),
      'SPEECH CREATE "lumenvox"',
      'SPEECH SET language "pt-BR"',
      expect.stringMatching(/^SPEECH RECOGNIZE "https:\/\/voice\.example\.com\/api\/v1\/media\/speech\.wav\?lang=[^&]+&text=Say\+your\+name\.[^"]*" 5000$/),
    ]);
    // Heard, but with no AI key nothing can be understood: the failure exit at once, no second try.
    expect(call.commands.filter((command) => command.startsWith('SPEECH RECOGNIZE'))).toHaveLength(1);
    expect(call.commands.at(-1)).toBe('EXEC Hangup 17');
    expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'welcome', 'ask', 'ko']);
    expect(report.failure).toBeNull();
  });

  test('a speech engine the PBX does not have (SPEECH CREATE answers 0) is the report’s failure; the prompts still play, the block hears silence', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: SPEECH_NUMBER }, asterisk([[/^SPEECH CREATE/, '200 result=0']]), { listener: agiWithSpeech });
    const report = await finishedCall(call, member.token, before);
    // Asked once per call: the retry does not ask again, and nothing is recognised.
    expect(call.commands.filter((command) => command.startsWith('SPEECH'))).toEqual(['SPEECH CREATE "lumenvox"']);
    expect(call.commands.filter((command) => command.startsWith('STREAM FILE'))).toEqual([
      expect.stringContaining('text=Welcome+to+Acme.'),
      expect.stringContaining('Thank+you.'),
      expect.stringContaining('text=Say+your+name.'),
      expect.stringContaining('text=Once+more%2C+please.'),
    ]);
    expect(call.commands.at(-1)).toBe('EXEC Hangup 17');
    expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'welcome', 'ask', 'ko']);
    expect(report.failure).toMatchObject({ code: 'speech_engine_unavailable', node_id: 'ask', message: expect.stringContaining('"lumenvox"') });
  });

  test('with no speech engine the PBX cannot listen: the prompts, the retry, then the failure exit', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: SPEECH_NUMBER }, asterisk());
    const report = await finishedCall(call, member.token, before);
    expect(call.commands.some((command) => command.startsWith('SPEECH'))).toBe(false);
    expect(call.commands.filter((command) => command.startsWith('STREAM FILE'))).toEqual([
      expect.stringContaining('text=Welcome+to+Acme.'),
      expect.stringContaining('Thank+you.'),
      expect.stringContaining('text=Say+your+name.'),
      expect.stringContaining('text=Once+more%2C+please.'),
    ]);
    expect(call.commands.at(-1)).toBe('EXEC Hangup 17');
    expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'welcome', 'ask', 'ko']);
  });
});

describe('the caller hanging up', () => {
  test('a 511 on a dead channel is a hang-up too', async () => {
    const before = await reportCount(member.token);
    const call = pbxCall({ agi_network_script: NUMBER }, asterisk([[/^EXEC MixMonitor/, '511 Command Not Permitted on a dead channel or intercept routine']]));
    const report = await finishedCall(call, member.token, before);
    expect(report.hangup_cause).toBe('caller_hangup');
  });
});

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
