/**
 * The licence and calls across several instances (issue 29, docs/licence.md, docs/deployment.md):
 * a licence for the installation holds on two server processes that report different hardware ids
 * (as on two machines), where one bound to a hardware id holds on its machine only; and two
 * instances on PostgreSQL, one killed with SIGKILL mid-call, the other finishing every call with
 * its whole report.
 */
import type { CallReportRecord, LicenseInfo, LicensePayload } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateLicenseKeyPair, issueLicense } from '../src/modules/license/license-document.ts';
import { ADMIN, dialect } from './harness.ts';
import { type Cleanups, createTenantMemberOver, request, type ServerProcess, startServerProcess } from './server-process.ts';
import { sayingPlan } from './sessions-helpers.ts';
import { signedTwilioCallback, twilioActionOf } from './twilio-callbacks.ts';

const MASTER_KEY = '29'.repeat(32);
const PUBLIC_URL = 'https://voice.example.com';
const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A second process on the database of `first`, with the same master key and public address. */
const sameDatabase = (first: ServerProcess) => ({ DATA_DIR: first.env.DATA_DIR, ...(first.env.DATABASE_URL && { DATABASE_URL: first.env.DATABASE_URL }) });

describe('a licence on two machines of one installation', () => {
  const vendor = generateLicenseKeyPair();
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;

  beforeAll(async () => {
    // No licence provisioned; the vendor's test key trusted; each process as if on its own machine.
    const env = { MASTER_KEY, PUBLIC_URL, LICENSE_FILE: '', LICENSE_PUBLIC_KEYS: vendor.publicKey };
    a = await startServerProcess(cleanups, { ...env, TEST_HARDWARE_ID: 'machine-a' });
    b = await startServerProcess(cleanups, { ...env, ...sameDatabase(a), TEST_HARDWARE_ID: 'machine-b' });
    ({ token: admin } = await a.call<{ token: string }>('POST', '/login', ADMIN));
  }, 60_000);

  const licenceOn = (instance: ServerProcess) => instance.call<LicenseInfo>('GET', '/license', undefined, admin);
  const issue = (covers: Pick<LicensePayload, 'installation_id'> | Pick<LicensePayload, 'hardware_id'>) =>
    issueLicense(
      {
        format: 1,
        serial: 'VXP-2026-0029',
        client: 'ACME Telecom',
        product: 'Voxplan',
        status: 'active',
        issued_at: new Date().toISOString(),
        expires_at: null,
        ...covers,
        limits: { concurrent_sessions: 40, tenants: 20, numbers: 30 },
      },
      vendor.privateKey,
    );

  test('both show one installation id and their own hardware ids; a licence for the installation is in force on both', async () => {
    const [onA, onB] = await Promise.all([licenceOn(a), licenceOn(b)]);
    expect(onA.hardware_id).toBe('machine-a');
    expect(onB.hardware_id).toBe('machine-b');
    expect(onB.installation_id).toBe(onA.installation_id);

    // Bound to machine A's hardware, as licences were first issued: machine B falls back to the defaults.
    await a.call('POST', '/license', { license: issue({ hardware_id: 'machine-a' }) }, admin);
    expect(await licenceOn(a)).toMatchObject({ state: 'active', problem: null, limits: { concurrent_sessions: 40 } });
    expect(await licenceOn(b)).toMatchObject({ state: 'without_license', problem: 'hardware_mismatch', limits: { concurrent_sessions: 10 } });
    await a.call('DELETE', '/license', undefined, admin);

    // For the installation: activated on B, in force on both machines.
    await b.call('POST', '/license', { license: issue({ installation_id: onA.installation_id }) }, admin);
    for (const instance of [a, b]) {
      expect(await licenceOn(instance)).toMatchObject({ state: 'active', problem: null, license: { installation_id: onA.installation_id }, limits: { concurrent_sessions: 40 } });
    }
    // The number of tenants it grants applies on both (the defaults allow 5).
    for (let i = 0; i < 6; i++) await (i % 2 === 0 ? a : b).call('POST', '/tenants', { name: `machines-${i}` }, admin);
  });

  test('a licence for another installation is refused, naming both ids', async () => {
    const answer = await request(a.agent, a.port, 'POST', '/api/v1/license', { license: issue({ installation_id: 'another-installation' }) }, admin);
    expect(answer.status).toBe(400);
    const { installation_id: actual } = await licenceOn(a);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'license_installation_mismatch', params: { licensed: 'another-installation', actual } } });
  });
});

describe.runIf(dialect === 'postgres')('two instances on PostgreSQL, one killed mid-call', () => {
  const [account, authToken, number] = ['AC00000000000000000000000000000029', 'failover-auth-token', '+551140002929'];
  const CALLS = 8;
  let a: ServerProcess;
  let b: ServerProcess;
  let member: { tenantId: number; token: string };

  beforeAll(async () => {
    a = await startServerProcess(cleanups, { MASTER_KEY, PUBLIC_URL });
    b = await startServerProcess(cleanups, { MASTER_KEY, PUBLIC_URL, ...sameDatabase(a) });
    const { token: admin } = await a.call<{ token: string }>('POST', '/login', ADMIN);
    member = await createTenantMemberOver(a.call, admin, 'failover');
    await a.call('PATCH', `/tenants/${member.tenantId}/integrations`, { twilio_sid: account, twilio_token: authToken }, admin);
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Failover' }, member.token);
    const document = sayingPlan('Hello caller.');
    const saved = await a.call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...document }, member.token);
    await a.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version }, member.token);
    await a.call('POST', '/numbers', { number, provider: 'twilio', voice_plan_id: plan.id }, member.token);
  }, 60_000);

  /** A callback as Twilio sends it to `path` (after /hooks/twilio/), signed for PUBLIC_URL, to one instance. */
  const hook = (instance: ServerProcess, path: string, form: Record<string, string>) => {
    const { url, headers, body } = signedTwilioCallback(authToken, PUBLIC_URL, path, form);
    return request(instance.agent, instance.port, 'POST', url, body, undefined, headers);
  };
  const callOf = (i: number) => ({ AccountSid: account, CallSid: `CA-failover-${i}`, From: '+14155550100', To: number, Direction: 'inbound', CallStatus: 'in-progress' });
  const gatherAction = (twiml: string) => twilioActionOf(twiml, 'Gather', PUBLIC_URL);

  test('every call the killed one answered is finished by the other, each with its whole report', async () => {
    // The proxy spreads the calls: every other one answered by A, and A asks again after a wrong key on half of them.
    const waiting: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      const instance = i % 2 === 0 ? a : b;
      let answer = await hook(instance, 'voice', { ...callOf(i), CallStatus: 'ringing' });
      expect(answer.body).toMatch(/<Say [^>]*>Hello caller\.<\/Say>/);
      if (i % 4 === 0) answer = await hook(a, gatherAction(answer.body), { ...callOf(i), Digits: '9' });
      waiting.push(gatherAction(answer.body));
    }
    a.child.kill('SIGKILL');
    await a.exited;
    // A callback in flight to A fails to connect; the proxy sends it, and every later one, to B.
    await expect(hook(a, waiting[0]!, { ...callOf(0), Digits: '1' })).rejects.toThrow();
    for (let i = 0; i < CALLS; i++) {
      const ended = await hook(b, waiting[i]!, { ...callOf(i), Digits: '1' });
      expect(ended.status, ended.body).toBe(200);
      expect(ended.body).toContain('<Hangup/>');
      expect((await hook(b, 'status', { ...callOf(i), CallStatus: 'completed', CallDuration: '20' })).status).toBe(204);
    }
    for (let i = 0; i < CALLS; i++) {
      const filter = encodeURIComponent(JSON.stringify({ where: { session_id: `CA-failover-${i}` } }));
      const [report] = await b.call<CallReportRecord[]>('GET', `/reports?filter=${filter}`, undefined, member.token);
      expect(report?.nodes.map((node) => `${node.node_id}:${node.exit}`), `call ${i}`).toEqual(['start:next', 'hello:next', 'ask:1', 'bye:null']);
      expect(report).toMatchObject({ hangup_cause: 'normal_clearing', last_node_id: 'bye', failure: null, is_test: false });
      expect(report!.pressed_digits.map((press) => press.digits)).toEqual(i % 4 === 0 ? ['9', '1'] : ['1']);
    }
  });
});
