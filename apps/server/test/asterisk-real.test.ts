/**
 * Calls through a real Asterisk 22.10.1 (issue 27), built by the vendored build.sh and started here
 * with a private configuration (asterisk-pbx.ts). Calls are placed with `channel originate`; the
 * caller's side of the Local channel presses keys with SendDTMF or is hung up from the CLI while a
 * prompt plays; destinations are Local channels that answer, are busy or ring out. The PBX fetches
 * the prompts from the server's PUBLIC_URL (res_http_media_cache), and MixMonitor's folder is
 * served over HTTP as a PBX's web server would (AGI_RECORDING_URL). Everything is awaited by
 * polling with generous deadlines: the machine may be loaded.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AuditEntry, CallReportRecord, StatsSystem } from '@voxplan/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AgiConfig } from '../src/config.ts';
import { type AgiServer, startAgiServer } from '../src/channels/asterisk/agi-server.ts';
import { asteriskBinary, freePort, type Pbx, startPbx, until } from './asterisk-pbx.ts';
import { createTenantMember, metricOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';

const found = asteriskBinary();
if ('missing' in found && process.env.CI) throw new Error(`the real-Asterisk suite cannot run in CI: ${found.missing}`);

/** The listener's log lines, to find what it said to the operator (a prompt it could not play). */
const logged: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
const record = (level: string) => (fields: unknown, message?: string) => {
  logged.push({ level, fields: typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>) : {}, message: message ?? String(fields) });
};
// A logger of the methods the listener calls; Fastify's logger type asks for pino's whole interface.
const captureLog = {
  level: 'info',
  info: record('info'),
  warn: record('warn'),
  error: record('error'),
  fatal: record('fatal'),
  debug: () => undefined,
  trace: () => undefined,
  silent: () => undefined,
  child: () => captureLog,
} as unknown as FastifyBaseLogger;

const number = (n: number) => `+5511300090${String(n).padStart(2, '0')}`;
const N = {
  answer: number(1),
  busy: number(2),
  noAnswer: number(3),
  menuTimeout: number(4),
  hangup: number(5),
  unfetchable: number(6),
  dtmf: number(7),
  wav: number(8),
  mp3: number(9),
  fenced: number(10),
  speech: number(11),
};

/** The callers' scripts (`<script>@caller`) and the destinations (`<n>@from-voxplan`, the dial context). */
const DIALPLAN = `
[caller]
exten => _hold.,1,Answer()
 same => n,Wait(600)
exten => press1,1,Answer()
 same => n(again),SendDTMF(1)
 same => n,Wait(1)
 same => n,Goto(again)
[from-voxplan]
exten => 2001,1,Answer()
 same => n,Wait(1)
 same => n,Hangup()
exten => 2002,1,Busy(10)
exten => 2003,1,Ringing()
 same => n,Wait(600)
`;

/** A call takes seconds of audio; several run at once on a machine that may be loaded. */
const CALL_TEST_TIMEOUT_MS = 300_000;

let server: TestServer;
let agi: AgiServer;
/** A listener configured with a speech engine the PBX does not have (none is built). */
let agiSpeech: AgiServer;
let pbx: Pbx;
let recordings: http.Server;
let member: TenantMember;
let fenced: TenantMember;
let adminToken: string;
let recordingBase: string;

describe.skipIf('missing' in found)('a real Asterisk', () => {
  beforeAll(async () => {
    const [httpPort, agiPort, recordingPort, speechPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    server = await startTestServer({ PUBLIC_URL: `http://127.0.0.1:${httpPort}` });
    await server.app.listen({ port: httpPort, host: '127.0.0.1' });
    // Calls to [ivr-speech] reach the listener whose speech engine the PBX lacks.
    const speechContext = `[ivr-speech]\nexten => _X.,1,AGI(agi://127.0.0.1:${speechPort}/\${EXTEN})\n same => n,Hangup()\n`;
    pbx = await startPbx({ binary: (found as { binary: string }).binary, agiPort, dialplan: DIALPLAN + speechContext });
    // The PBX's web server for MixMonitor's folder (AGI_RECORDING_URL).
    recordings = http.createServer((request, response) => {
      const file = path.join(pbx.monitorDir, path.basename(decodeURIComponent(request.url ?? '')));
      if (!fs.existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => recordings.listen(recordingPort, '127.0.0.1', resolve));
    recordingBase = `http://127.0.0.1:${recordingPort}/recordings/`;
    const config: AgiConfig = {
      port: agiPort,
      host: '127.0.0.1',
      sipEndpoint: 'voxplan',
      dialContext: 'from-voxplan',
      recordingUrl: `${recordingBase}{file}`,
      recordingDir: pbx.monitorDir,
      speechEngine: undefined,
    };
    agi = await startAgiServer(server.ctx, config, captureLog);
    agiSpeech = await startAgiServer(server.ctx, { ...config, port: speechPort, speechEngine: 'nosuch' }, captureLog);

    adminToken = await server.login();
    member = await createTenantMember(server, adminToken, 'pbx');
    fenced = await createTenantMember(server, adminToken, 'pbx-fenced');
    const create = async (token: string, url: string, payload: Record<string, unknown>) => {
      const response = await server.call({ method: 'POST', url, token, payload });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: number }>().id;
    };
    const plan = async (tenantId: number, name: string, nodes: ReturnType<typeof planNode>[], edges: ReturnType<typeof planEdge>[]) =>
      storePlan(server.ctx, tenantId, {
        name,
        format_version: 1,
        settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '' },
        nodes: [planNode('start', 'start', { generate_protocol: false, ignore_call: false }), ...nodes],
        edges: [planEdge('start', 'next', nodes[0]!.id), ...edges],
      });
    const say = (id: string, text: string) => planNode(id, 'play_message', { text_to_speech: true, voice_text: text });
    const bye = planNode('bye', 'hangup', { cause: 'normal_clearing' });
    const menu = planNode('menu', 'voice_menu', {
      text_to_speech: true,
      voice_text: 'For sales press 1.',
      options: [{ digits: '1', label: 'Sales' }],
      max_digits: 1,
      timeout_s: 2,
      max_retries: 0,
      invalid_text: 'Sorry.',
    });
    const dialPlan = async (name: string, extension: string, timeoutS: number) => {
      const desk = await create(member.token, '/destinations', { name: `Desk ${name}`, kind: 'voice', uri: `tel:${extension};phone-context=pbx.example.com` });
      return plan(
        member.tenantId,
        `Transfer ${name}`,
        [menu, planNode('desk', 'destination', { destination_id: desk, timeout_s: timeoutS }), say('thanks', 'Thank you for calling.'), say('sorry', 'Nobody could take your call.'), bye],
        [
          planEdge('menu', '1', 'desk'),
          planEdge('menu', 'timeout', 'bye'),
          planEdge('desk', 'answer', 'thanks'),
          planEdge('desk', 'busy', 'sorry'),
          planEdge('desk', 'no_answer', 'sorry'),
          planEdge('desk', 'failed', 'bye'),
          planEdge('thanks', 'next', 'bye'),
          planEdge('sorry', 'next', 'bye'),
        ],
      );
    };
    const recordingPlan = (format: 'wav' | 'mp3') =>
      plan(
        member.tenantId,
        `Recorded ${format}`,
        [planNode('rec', 'recording', { analyses: [], format, percentage: 100 }), say('notice', 'This call is recorded. Thank you for calling us today.'), bye],
        [planEdge('rec', 'next', 'notice'), planEdge('notice', 'next', 'bye')],
      );
    // An audio the server signs URLs for but has no data of: the PBX's fetch answers 404.
    const now = new Date().toISOString();
    const { id: lostAudio } = await server.ctx.db
      .insertInto('audios')
      .values({ tenant_id: member.tenantId, created_time: now, updated_time: now, name: 'Lost greeting', source: 'upload', language: '', voice: '', text: '', format: 'wav', mime_type: 'audio/wav', size: 0, status: 'ready', progress: 100 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const plans: Array<[string, number, TenantMember]> = [
      [N.answer, await dialPlan('answer', '2001', 15), member],
      [N.busy, await dialPlan('busy', '2002', 15), member],
      [N.noAnswer, await dialPlan('no answer', '2003', 2), member],
      [N.menuTimeout, await plan(member.tenantId, 'Menu', [menu, bye], [planEdge('menu', 'timeout', 'bye')]), member],
      [
        N.hangup,
        await plan(
          member.tenantId,
          'Long welcome',
          [say('welcome', 'Welcome to the exchange test. This message is long, so that the caller can hang up while it plays. Please hold on.'), planNode('rec', 'recording', { analyses: [], format: 'wav', percentage: 100 }), menu, bye],
          [planEdge('welcome', 'next', 'rec'), planEdge('rec', 'next', 'menu'), planEdge('menu', 'timeout', 'bye')],
        ),
        member,
      ],
      [
        N.unfetchable,
        await plan(
          member.tenantId,
          'Lost prompt',
          [planNode('lost', 'play_message', { text_to_speech: false, audio_id: lostAudio, voice_text: 'Hello.' }), menu, bye],
          [planEdge('lost', 'next', 'menu'), planEdge('menu', 'timeout', 'bye')],
        ),
        member,
      ],
      [N.dtmf, await plan(member.tenantId, 'Tones', [planNode('tones', 'send_dtmf', { digits: '12w3' }), bye], [planEdge('tones', 'next', 'bye')]), member],
      [N.wav, await recordingPlan('wav'), member],
      [N.mp3, await recordingPlan('mp3'), member],
      [N.fenced, await plan(fenced.tenantId, 'Fenced', [bye], []), fenced],
      [
        N.speech,
        await plan(
          member.tenantId,
          'Speech',
          [
            say('welcome', 'Welcome.'),
            planNode('ask', 'speech_detection', { voice_text: 'Say your name.', variables: [{ name: 'name', description: 'the caller’s name' }], max_retries: 0, retry_text: '', language: 'pt-BR' }),
            bye,
          ],
          [planEdge('welcome', 'next', 'ask'), planEdge('ask', 'failed', 'bye'), planEdge('ask', 'success', 'bye')],
        ),
        member,
      ],
    ];
    for (const [phone, voicePlan, tenant] of plans) await create(tenant.token, '/numbers', { number: phone, provider: 'asterisk', voice_plan_id: voicePlan });
    await create(member.token, '/acl', { name: 'PBX', address: '127.0.0.1' });
    await create(fenced.token, '/acl', { name: 'Elsewhere', address: '10.0.0.0/8' });
  }, 600_000);

  afterAll(async () => {
    await agi?.close(1000);
    await agiSpeech?.close(1000);
    await pbx?.stop();
    await new Promise((resolve) => (recordings ? recordings.close(resolve) : resolve(undefined)));
    await server?.close();
  });

  async function reportOf(called: string, token = member.token): Promise<CallReportRecord | undefined> {
    const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { called } })}`, token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<CallReportRecord[]>()[0];
  }

  /** Places a call from `<caller>@caller` to the number and waits for its report. */
  async function call(called: string, caller: string): Promise<CallReportRecord> {
    await pbx.originate(caller, called.slice(1));
    return until(`the report of the call to ${called}`, () => reportOf(called), 120_000);
  }

  const path_ = (report: CallReportRecord) => report.nodes.map((node) => node.exit === null ? node.node_id : `${node.node_id}:${node.exit}`);

  test.concurrent('an answered transfer takes the answer exit and is routed, not abandoned', async () => {
    const report = await call(N.answer, 'press1');
    expect(report).toMatchObject({ dial_status: 'answer', hangup_cause: 'normal_clearing', disposition: 'routed' });
    expect(report.pressed_digits).toEqual([expect.objectContaining({ node_id: 'menu', digits: '1' })]);
    expect(path_(report)).toEqual(['start:next', 'menu:1', 'desk:answer', 'thanks:next', 'bye']);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a busy destination takes the busy exit', async () => {
    const report = await call(N.busy, 'press1');
    expect(report).toMatchObject({ dial_status: 'busy', hangup_cause: 'normal_clearing', disposition: 'retained' });
    expect(path_(report)).toEqual(['start:next', 'menu:1', 'desk:busy', 'sorry:next', 'bye']);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a destination nobody answers in time takes the no-answer exit', async () => {
    const report = await call(N.noAnswer, 'press1');
    expect(report).toMatchObject({ dial_status: 'no_answer', hangup_cause: 'normal_clearing', disposition: 'retained' });
    expect(path_(report)).toEqual(['start:next', 'menu:1', 'desk:no_answer', 'sorry:next', 'bye']);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('no key at the menu takes its timeout exit', async () => {
    const report = await call(N.menuTimeout, 'hold-timeout');
    expect(report).toMatchObject({ dial_status: null, hangup_cause: 'normal_clearing', pressed_digits: [] });
    expect(path_(report)).toEqual(['start:next', 'menu:timeout', 'bye']);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a caller who hangs up during the welcome: the path ends there, no recording was made', async () => {
    const from = pbx.log().length;
    await pbx.originate('hold-hangup', N.hangup.slice(1));
    // The welcome is playing on the call's channel: the caller's side hangs up.
    const playing = await pbx.waitForLog(/<(Local\/hold-hangup@caller-[0-9a-f]+);1>AGI Rx << STREAM FILE "[^"]*Welcome/, { from, timeoutMs: 120_000 });
    await pbx.cli(`channel request hangup ${playing[1]};2`);
    const report = await until('the report of the hung-up call', () => reportOf(N.hangup), 120_000);
    expect(report).toMatchObject({ hangup_cause: 'caller_hangup', disposition: 'abandoned', recording: null });
    expect(path_(report)).toEqual(['start:next', 'welcome']);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a prompt the PBX cannot fetch is logged with its URL and reason, and the plan goes on', async () => {
    const report = await call(N.unfetchable, 'hold-unfetchable');
    // Not taken for a hang-up: the menu after it ran to its timeout, and the plan ended it.
    expect(report).toMatchObject({ hangup_cause: 'normal_clearing', disposition: 'retained' });
    expect(path_(report)).toEqual(['start:next', 'lost:next', 'menu:timeout', 'bye']);
    const warning = logged.find((line) => line.level === 'warn' && line.fields.session_id === report.session_id);
    expect(warning?.fields).toMatchObject({ reason: 'audio_not_found', url: expect.stringMatching(/\/api\/v1\/media\/audios\/\d+\?exp=/) });
    // The operator sees it on the report, at the block whose prompt it was, and on the dashboard's system status.
    expect(report.failure).toMatchObject({ code: 'prompt_unplayable', node_id: 'lost', message: expect.stringMatching(/\/media\/audios\/\d+.*audio_not_found/) });
    const system = await server.call({ method: 'GET', url: '/stats/system', token: member.token });
    // At least this call: on a loaded machine another call's spoken prompt may miss the PBX's fetch time too (seen once in CI).
    expect(system.json<StatsSystem>().prompts.unplayable_calls).toBeGreaterThanOrEqual(1);
    // And GET /metrics counts it as a media fetch failure.
    expect(await metricOf(server, 'voxplan_media_fetch_failures_total{kind="prompt"}')).toBeGreaterThanOrEqual(1);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('send_dtmf sends its tones on the call', async () => {
    const from = pbx.log().length;
    const report = await call(N.dtmf, 'hold-dtmf');
    expect(report).toMatchObject({ hangup_cause: 'normal_clearing' });
    expect(path_(report)).toEqual(['start:next', 'tones:next', 'bye']);
    // The call's own lines (other calls' lines come in between); the PBX's logger writes them a moment later.
    await pbx.waitForLog(/<(Local\/hold-dtmf@caller-[0-9a-f]+;1)>AGI Rx << EXEC SendDTMF "12w3"\n(?:.*\n)*?.*<\1>AGI Tx >> 200 result=0\n/, { from });
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent.each([
    ['wav', 'RIFF'],
    ['mp3', 'ID3'],
  ])('a %s recording is reported once its file is there, in that format, and its URL answers', async (format, magic) => {
    const report = await call(format === 'wav' ? N.wav : N.mp3, `hold-${format}`);
    const recorded = await until('the recording', async () => {
      const recording = (await reportOf(report.called))?.recording;
      return recording && recording.status !== 'recording' ? recording : undefined;
    });
    expect(recorded).toMatchObject({ status: 'recorded', url: expect.stringMatching(new RegExp(`^${recordingBase}voxplan-[0-9a-f-]+\\.${format}$`)) });
    const file = await fetch(recorded.url!);
    expect(file.status).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(1000);
    if (magic === 'ID3') expect(bytes.subarray(0, 3).toString() === 'ID3' || bytes[0] === 0xff).toBe(true);
    else expect(bytes.subarray(0, 4).toString()).toBe(magic);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a PBX off the tenant’s access-control list is refused: no plan runs, the refusal is audited', async () => {
    const refused = agi.refused;
    const from = pbx.log().length;
    await pbx.originate('hold-fenced', N.fenced.slice(1));
    await until('the refusal', () => (agi.refused > refused ? true : undefined));
    // Asterisk goes on in its dialplan once the connection closes, having been sent nothing.
    await pbx.waitForLog(/Executing \[551130009010@ivr:2\] Hangup/, { from });
    expect(await reportOf(N.fenced, fenced.token)).toBeUndefined();
    const audit = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'agi_call', tenant_id: fenced.tenantId } })}`, token: adminToken });
    expect(audit.json<AuditEntry[]>()).toEqual([expect.objectContaining({ action: 'refuse', source_ip: '127.0.0.1', after: expect.objectContaining({ reason: 'acl', called: N.fenced }) })]);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a speech engine the PBX does not have: SPEECH CREATE answers 0, the report names it, every prompt was played', async () => {
    const from = pbx.log().length;
    await pbx.cli(`channel originate Local/hold-speech@caller extension ${N.speech.slice(1)}@ivr-speech`);
    const report = await until('the report of the speech call', () => reportOf(N.speech), 120_000);
    expect(report).toMatchObject({ hangup_cause: 'normal_clearing', failure: { code: 'speech_engine_unavailable', node_id: 'ask', message: expect.stringContaining('"nosuch"') } });
    expect(path_(report)).toEqual(['start:next', 'welcome:next', 'ask:failed', 'bye']);
    // The real PBX's answer, and both prompts (the welcome before the speech block, and its own) streamed on the call.
    const call = /<(Local\/hold-speech@caller-[0-9a-f]+;1)>AGI Rx << STREAM FILE "[^"]*text=Welcome\./.exec(pbx.log().slice(from));
    expect(call).not.toBeNull();
    const own = pbx.log().slice(from).split('\n').filter((line) => line.includes(`<${call![1]}>AGI`));
    expect(own.map((line) => line.replace(/^.*AGI (Rx <<|Tx >>) /, '$1 '))).toEqual(
      expect.arrayContaining(['Rx << SPEECH CREATE "nosuch"', 'Tx >> 200 result=0', expect.stringMatching(/^Rx << STREAM FILE "[^"]*text=Say\+your\+name\./)]),
    );
  }, CALL_TEST_TIMEOUT_MS);
});
