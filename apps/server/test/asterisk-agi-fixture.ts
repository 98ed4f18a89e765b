/**
 * What the FastAGI tests share (asterisk-agi*.test.ts): a server whose tenants have Asterisk numbers
 * on the front-desk and speech plans, three AGI listeners (plain, with a speech engine, with a short
 * deadline), and a client that plays the PBX as Asterisk 22 answers. The bindings are set by
 * useAgiServer's hooks.
 */
import net from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AgiConfig } from '../src/config.ts';
import { type AgiServer, startAgiServer } from '../src/channels/asterisk/agi-server.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, readFixture, storePlan } from './sessions-helpers.ts';

export const PUBLIC_URL = 'https://voice.example.com';
export const NUMBER = '+551130000100';
export const OPEN_NUMBER = '+551130000300';
export const SPEECH_NUMBER = '+551130000400';
/** A welcome over 250 characters: spoken in two parts (each AGI command fits Asterisk's line). */
export const LONG_WELCOME = `Welcome to Acme. ${'Our lines are open from eight to eight, every day of the week. '.repeat(4)}Thank you.`;
export const CALLER = '5511988887777';

export const agiConfig: AgiConfig = {
  port: 0,
  host: '127.0.0.1',
  sipEndpoint: 'voxplan',
  dialContext: 'from-voxplan',
  recordingUrl: 'https://pbx.acme.example/recordings/{file}',
  recordingDir: undefined,
  speechEngine: undefined,
};

export let server: TestServer;
export let agi: AgiServer;
/** The same server's listener with a speech engine configured. */
export let agiWithSpeech: AgiServer;
/** The same server's listener with a short deadline for a start or a turn (PROVIDER_HOOK_DEADLINE_MS). */
export let agiHasty: AgiServer;
export const HASTY_DEADLINE_MS = 300;
export let member: TenantMember;
export let unlisted: TenantMember;
export let adminToken: string;

/** Answers a command line as Asterisk would; `'hangup'` answers -1, then sends the HANGUP line; `'silence'` answers nothing. */
export type Responder = (command: string) => string | 'hangup' | 'silence';

export interface PbxCall {
  commands: string[];
  /** The connection closed by the server, and when. */
  closed: Promise<void>;
}

/** A call as Asterisk places it on `agi://<server>/<script>`. */
export function pbxCall(variables: Record<string, string>, respond: Responder, options: { raw?: string; listener?: AgiServer } = {}): PbxCall {
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

export const DEAD_CHANNEL = '511 Command Not Permitted on a dead channel or intercept routine';

/**
 * The usual answers: prompts play to their end, no key is pressed, the channel is up (state 6),
 * the dial is answered. Dial answers -1 when a bridged call ends, the caller still there.
 */
export function asterisk(overrides: Array<[RegExp, string | 'hangup' | 'silence']> = []): Responder {
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

export const PRESS_1 = '200 result=49 endpos=1200';

export async function reportsOf(token: string, where: Record<string, unknown>): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where, order: ['id ASC'] })}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

export const lastReport = async (token = member.token) => (await reportsOf(token, { provider: 'asterisk' })).at(-1);

/** Waits until the server has ended the session it ran for this call and written its report. */
export async function reportCount(token: string): Promise<number> {
  const response = await server.call({ method: 'GET', url: `/reports/count?${q('where', { provider: 'asterisk' })}`, token });
  return response.json<{ count: number }>().count;
}

export async function finishedCall(call: PbxCall, token = member.token, before?: number): Promise<CallReportRecord> {
  await call.closed;
  const start = before ?? 0;
  for (let attempt = 0; attempt < 100 && (await reportCount(token)) <= start; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  const report = await lastReport(token);
  if (!report) throw new Error('no report');
  return report;
}

/** Starts the server, its tenants' numbers and plans, and the three AGI listeners for the file that calls it. */
export function useAgiServer(): void {
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
}
