/**
 * Calls the plan places on a real Asterisk 22.10.1 (issue 38): `POST /outbound-calls` from an
 * Asterisk number, through the PBX's Manager Interface (an asynchronous Originate) into the
 * outbound context of asterisk-pbx.ts, which runs AMD() and then the session's FastAGI. The callees
 * are Local channels of this file's dialplan: one answers with a short "hello" then silence (AMD:
 * HUMAN), one with a long greeting (MACHINE), one is busy, one rings until the ring timeout. Tones
 * stand in for voices: AMD hears energy and silence, not words. Also the manager unreachable and
 * the login refused, through the API.
 */
import type { AuditEntry, CallReportRecord, OutboundCall } from '@voxplan/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { AgiConfig, AmiConfig } from '../src/config.ts';
import { type AgiServer, startAgiServer } from '../src/channels/asterisk/agi-server.ts';
import { AmiDialer } from '../src/channels/asterisk/ami-dialer.ts';
import { asteriskBinary, freePort, type Pbx, startPbx, until } from './asterisk-pbx.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';

const found = asteriskBinary();
if ('missing' in found && process.env.CI) throw new Error(`the real-Asterisk suite cannot run in CI: ${found.missing}`);

const FROM = '+551130009100';
const FENCED_FROM = '+551130009101';
const CALLEE = { human: '+5511990000001', machine: '+5511990000002', busy: '+5511990000003', ringing: '+5511990000004', gone: '+5511990000005', orphaned: '+5511990000006' };

/**
 * The callees, dialled as `Local/<number>@callee` (AMI_CHANNEL). AMD's defaults (amd.conf): a
 * greeting of at most 1.5 s followed by 0.8 s of silence is a person; a longer one a machine.
 */
const DIALPLAN = `
[callee]
exten => ${CALLEE.human},1,Answer()
 same => n,Playtones(440/400,0/20000)
 same => n,Wait(60)
exten => ${CALLEE.machine},1,Answer()
 same => n,Playtones(440/20000)
 same => n,Wait(60)
exten => ${CALLEE.busy},1,Busy(10)
exten => ${CALLEE.orphaned},1,Busy(10)
exten => ${CALLEE.gone},1,Answer()
 same => n,Wait(0.3)
 same => n,Hangup()
exten => ${CALLEE.ringing},1,Ringing()
 same => n,Wait(600)
`;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined, fatal: () => undefined, silent: () => undefined, level: 'silent' };
const silentLog = { ...quiet, child: () => silentLog } as unknown as FastifyBaseLogger;

const CALL_TEST_TIMEOUT_MS = 180_000;

let server: TestServer;
let agi: AgiServer;
let pbx: Pbx;
let member: TenantMember;
/** A tenant whose access-control list leaves the PBX out. */
let fenced: TenantMember;
let adminToken: string;
let ami: AmiConfig;

const place = (to: string) => server.call({ method: 'POST', url: '/outbound-calls', token: member.token, payload: { from: FROM, to, machine_detection: true } });

describe.skipIf('missing' in found)('calls placed on a real Asterisk', () => {
  beforeAll(async () => {
    const [httpPort, agiPort, amiPort] = [await freePort(), await freePort(), await freePort()];
    server = await startTestServer({
      PUBLIC_URL: `http://127.0.0.1:${httpPort}`,
      AMI_HOST: '127.0.0.1',
      AMI_PORT: String(amiPort),
      AMI_USERNAME: 'voxplan',
      AMI_SECRET: 'manager-secret',
      AMI_CHANNEL: 'Local/{number}@callee',
      // A call answered but never handed to FastAGI ends after this wait (30 s by default).
      AMI_ANSWER_WAIT_MS: '8000',
    });
    await server.app.listen({ port: httpPort, host: '127.0.0.1' });
    ami = server.ctx.config.ami!;
    pbx = await startPbx({ binary: (found as { binary: string }).binary, agiPort, dialplan: DIALPLAN, manager: { port: amiPort, username: 'voxplan', secret: 'manager-secret' } });
    const config: AgiConfig = { port: agiPort, host: '127.0.0.1', sipEndpoint: 'voxplan', dialContext: 'from-voxplan', recordingUrl: undefined, recordingDir: undefined, speechEngine: undefined };
    agi = await startAgiServer(server.ctx, config, silentLog);

    adminToken = await server.login();
    member = await createTenantMember(server, adminToken, 'pbx-outbound');
    fenced = await createTenantMember(server, adminToken, 'pbx-outbound-fenced');
    const reminder = (tenantId: number) => storePlan(server.ctx, tenantId, {
      name: 'Reminder',
      format_version: 1,
      settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '' },
      nodes: [
        planNode('start', 'start', { generate_protocol: false, ignore_call: false }),
        planNode('remind', 'play_message', { text_to_speech: true, voice_text: 'Your appointment is tomorrow.' }),
        planNode('bye', 'hangup', { cause: 'normal_clearing' }),
      ],
      edges: [planEdge('start', 'next', 'remind'), planEdge('remind', 'next', 'bye')],
    });
    for (const [token, url, payload] of [
      [member.token, '/numbers', { number: FROM, provider: 'asterisk', voice_plan_id: await reminder(member.tenantId) }],
      [member.token, '/acl', { name: 'PBX', address: '127.0.0.1' }],
      [fenced.token, '/numbers', { number: FENCED_FROM, provider: 'asterisk', voice_plan_id: await reminder(fenced.tenantId) }],
      [fenced.token, '/acl', { name: 'Elsewhere', address: '10.0.0.0/8' }],
    ] as const) {
      const response = await server.call({ method: 'POST', url, token, payload });
      expect(response.statusCode, response.body).toBe(201);
    }
  }, 600_000);

  afterAll(async () => {
    await agi?.close(1000);
    await pbx?.stop();
    await server?.close();
  });

  /** The call once over, as the API's GET tells it, and its report. */
  async function ended(sessionId: string, token = member.token): Promise<{ call: OutboundCall; report: CallReportRecord }> {
    const call = await until(
      `the end of call ${sessionId}`,
      async () => {
        const response = await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, token });
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json<OutboundCall>();
        return body.state === 'ended' ? body : undefined;
      },
      120_000,
    );
    const reports = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId } })}`, token });
    const [report] = reports.json<CallReportRecord[]>();
    expect(report, reports.body).toBeDefined();
    return { call, report: report! };
  }

  const path_ = (report: CallReportRecord) => report.nodes.map((node) => (node.exit === null ? node.node_id : `${node.node_id}:${node.exit}`));

  test.concurrent.each([
    ['a person', CALLEE.human, 'human'],
    ['an answering machine', CALLEE.machine, 'machine'],
  ])('answered by %s: AMD tells it, the plan runs outbound', async (_who, to, answeredBy) => {
    const from = pbx.log().length;
    const placed = await place(to);
    expect(placed.statusCode, placed.body).toBe(202);
    const { session_id: sessionId } = placed.json<{ session_id: string }>();
    const { call, report } = await ended(sessionId);
    expect(call).toMatchObject({ dial_status: 'answer', answered_by: answeredBy, to });
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'answer', called: to, hangup_cause: 'normal_clearing' });
    expect(path_(report)).toEqual(['start:next', 'remind:next', 'bye']);
    // The PBX ran AMD, then handed the answered call to the session's FastAGI with its verdict.
    await pbx.waitForLog(new RegExp(`Executing \\[s@voxplan-outbound:2\\] AGI\\(.*agi://127\\.0\\.0\\.1:\\d+/outbound/${sessionId},${answeredBy.toUpperCase()}`), { from });
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a busy callee: the report says busy, the plan never ran', async () => {
    const placed = await place(CALLEE.busy);
    expect(placed.statusCode, placed.body).toBe(202);
    const { call, report } = await ended(placed.json<{ session_id: string }>().session_id);
    expect(call).toMatchObject({ dial_status: 'busy', answered_by: null });
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'busy' });
    expect(report.nodes.filter((node) => node.node_id !== 'start')).toEqual([]);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a callee who never answers: no_answer once the ring timeout is over, the plan never ran', async () => {
    // The API rings for 30 s; a campaign names its own ring timeout, as here.
    const { session_id: sessionId } = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to: CALLEE.ringing, variables: {}, machine_detection: true, ring_timeout_s: 3 });
    const { call, report } = await ended(sessionId);
    expect(call).toMatchObject({ dial_status: 'no_answer', answered_by: null });
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'no_answer' });
    expect(report.nodes.filter((node) => node.node_id !== 'start')).toEqual([]);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a callee who hangs up during AMD: the dialplan never reaches FastAGI, the call ends as failed after the wait', async () => {
    const placed = await place(CALLEE.gone);
    expect(placed.statusCode, placed.body).toBe(202);
    const { call, report } = await ended(placed.json<{ session_id: string }>().session_id);
    expect(call).toMatchObject({ dial_status: 'failed' });
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'failed' });
    expect(report.nodes.filter((node) => node.node_id !== 'start')).toEqual([]);
  }, CALL_TEST_TIMEOUT_MS);

  test.concurrent('a PBX off the tenant’s access-control list: the answered call runs no plan, the refusal is audited, the call ends as failed', async () => {
    const placed = await server.call({ method: 'POST', url: '/outbound-calls', token: fenced.token, payload: { from: FENCED_FROM, to: CALLEE.human, machine_detection: false } });
    expect(placed.statusCode, placed.body).toBe(202);
    const sessionId = placed.json<{ session_id: string }>().session_id;
    const { call, report } = await ended(sessionId, fenced.token);
    expect(call).toMatchObject({ dial_status: 'failed' });
    expect(report.nodes.filter((node) => node.node_id !== 'start')).toEqual([]);
    const audit = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'agi_call', tenant_id: fenced.tenantId } })}`, token: adminToken });
    expect(audit.json<AuditEntry[]>()).toEqual([expect.objectContaining({ action: 'refuse', source_ip: '127.0.0.1', after: expect.objectContaining({ reason: 'acl', session_id: sessionId }) })]);
  }, CALL_TEST_TIMEOUT_MS);

  test('an instance that stops between its Originate and the response: another connected to the manager hears it, and the call ends busy with its report', async () => {
    // A call of the server's own first: its manager connection is made, and the row is the model of the next.
    const first = await place(CALLEE.orphaned);
    expect(first.statusCode, first.body).toBe(202);
    expect((await ended(first.json<{ session_id: string }>().session_id)).call.dial_status).toBe('busy');
    // The "dying" instance is a second manager connection.
    const sessionId = randomUUID();
    const now = new Date().toISOString();
    const model = await server.ctx.db.selectFrom('outbound_calls').selectAll().where('session_id', '=', first.json<{ session_id: string }>().session_id).executeTakeFirstOrThrow();
    await server.ctx.db
      .insertInto('outbound_calls')
      .values({ ...model, session_id: sessionId, called: CALLEE.orphaned, state: 'dialing', dial_status: null, answered_by: null, provider_call_id: sessionId, campaign_id: null, status_url: null, machine_detection: 0, ring_timeout_s: 10, created_time: now, updated_time: now, ended_time: null })
      .execute();
    // It sends the Originate, and is gone before it can store what the manager answers.
    const dying = new AmiDialer(ami, () => Promise.resolve(), silentLog);
    await dying.place({ session_id: sessionId, from: FROM, to: CALLEE.orphaned, machine_detection: false, ring_timeout_s: 10 });
    await dying.close();
    const { call, report } = await ended(sessionId);
    expect(call).toMatchObject({ dial_status: 'busy', answered_by: null });
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'busy', called: CALLEE.orphaned });
  }, CALL_TEST_TIMEOUT_MS);

  describe('a manager that cannot be used', () => {
    // After the calls above: the settings are swapped for these two, as an operator's mistake would make them.
    const refusedWith = async (settings: Partial<AmiConfig>) => {
      (server.ctx.config as { ami: AmiConfig | null }).ami = { ...ami, ...settings };
      try {
        const before = await server.call({ method: 'GET', url: `/reports/count?${q('where', { direction: 'outbound' })}`, token: member.token });
        const response = await place(CALLEE.human);
        const after = await server.call({ method: 'GET', url: `/reports/count?${q('where', { direction: 'outbound' })}`, token: member.token });
        // Nothing of the call is stored.
        expect(after.json<{ count: number }>()).toEqual(before.json<{ count: number }>());
        return response;
      } finally {
        (server.ctx.config as { ami: AmiConfig | null }).ami = ami;
      }
    };

    test('an unreachable manager: 422 ami_unreachable, with its address', async () => {
      const response = await refusedWith({ port: await freePort() });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ error: { code: 'ami_unreachable', message: expect.stringContaining('127.0.0.1') } });
    });

    test('a wrong secret: 422 ami_login_refused', async () => {
      const response = await refusedWith({ secret: 'not-the-secret' });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ error: { code: 'ami_login_refused' } });
    });
  });
});
