import { describe, expect, test } from 'vitest';
import { calledCandidates } from '../src/channels/asterisk/agi-server.ts';
import { agiWithSpeech, asterisk, CALLER, finishedCall, member, NUMBER, pbxCall, PRESS_1, reportCount, reportsOf, server, SPEECH_NUMBER, useAgiServer } from './asterisk-agi-fixture.ts';

/**
 * Calls from Asterisk over FastAGI (issue 19): a client here plays the PBX over TCP as Asterisk
 * 22 answers (res_agi.c, app_dial.c; checked against the real one in asterisk-real.test.ts): the
 * variables block, then each command answered with `200 result=…`; when the caller hangs up, the
 * command's `200 result=-1`, then a `HANGUP` line, and `511` to what may not run on a dead
 * channel. Only what a real PBX will not produce on demand is here: the exact command lines, the
 * dial statuses no Local channel gives, speech (no speech engine is built), a 511, the numbers
 * a request may name, and malformed or silent peers. asterisk-real.test.ts has the rest. The
 * number a request names, a whole IVR, speech and hang-ups are here; the access-control list,
 * misbehaving peers, a faltering database and the plan’s language are in asterisk-agi-faults.test.ts.
 */

useAgiServer();

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
    await expect.poll(async () => (await reportsOf(member.token, { id: report.id }))[0]?.recording?.url).toBe(recordingUrl);

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
