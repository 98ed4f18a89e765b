/**
 * The licence (issue 20): documents signed by the vendor's key (here a test key the server is told
 * to trust, as LICENSE_PUBLIC_KEYS allows), every way one can be wrong, the limits enforced and
 * lifted, expiry as time passes, and sync against a local licence server.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { defaultLicenseLimits, type LicenseInfo, type LicensePayload, type StatsSystem } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { evaluateLicense, trustedLicenseKeys } from '../src/modules/license/license.service.ts';
import { generateLicenseKeyPair, issueLicense } from '../src/modules/license/license-document.ts';
import { readHardwareId } from '../src/modules/system/system-info.routes.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { signedTwilioCallback, twilioCallForm } from './twilio-callbacks.ts';

const vendor = generateLicenseKeyPair();
const stranger = generateLicenseKeyPair();
let hardwareId: string;
let server: TestServer;
let admin: string;
let member: TenantMember;
let licenceServer: http.Server;
/** What the local licence server answers next: a status and a body. */
let licenceAnswer: { status: number; body: unknown } = { status: 404, body: {} };
const licenceRequests: unknown[] = [];

const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

function payload(overrides: Partial<LicensePayload> = {}): LicensePayload {
  return {
    format: 1,
    serial: 'VXP-2026-0001',
    client: 'ACME Telecom',
    product: 'Voxplan',
    status: 'active',
    issued_at: new Date().toISOString(),
    expires_at: inDays(365),
    hardware_id: hardwareId,
    limits: { concurrent_sessions: 2, tenants: 4, numbers: 1 },
    ...overrides,
  };
}
const issue = (overrides: Partial<LicensePayload> = {}, key = vendor.privateKey) => issueLicense(payload(overrides), key);

const get = async () => {
  const response = await server.call({ method: 'GET', url: '/license', token: admin });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<LicenseInfo>();
};
const activate = (license: string, token = admin) => server.call({ method: 'POST', url: '/license', token, payload: { license } });
const remove = () => server.call({ method: 'DELETE', url: '/license', token: admin });

beforeAll(async () => {
  hardwareId = await readHardwareId();
  licenceServer = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      licenceRequests.push(JSON.parse(body || 'null'));
      response.writeHead(licenceAnswer.status, { 'content-type': 'application/json' }).end(JSON.stringify(licenceAnswer.body));
    });
  });
  await new Promise<void>((resolve) => licenceServer.listen(0, '127.0.0.1', resolve));
  // No provisioned licence: the defaults apply until one is activated.
  server = await startTestServer({ LICENSE_FILE: '', LICENSE_PUBLIC_KEYS: vendor.publicKey });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'licence-member');
});

afterAll(async () => {
  await server?.close();
  if (licenceServer?.listening) await new Promise((resolve) => licenceServer.close(resolve));
});

beforeEach(async () => {
  await server.ctx.db.deleteFrom('license').execute();
  await server.ctx.license.refresh().catch(() => undefined);
});

/** A plan whose calls wait at a menu until they end. */
const waitingPlan = (name: string) => ({
  name,
  format_version: 1,
  settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '' },
  nodes: [
    planNode('start', 'start', { generate_protocol: false, ignore_call: false }),
    planNode('menu', 'voice_menu', { voice_text: 'Press 1.', options: [{ digits: '1', label: 'One' }] }),
    planNode('bye', 'hangup', { cause: 'normal_clearing' }),
  ],
  edges: [planEdge('start', 'next', 'menu'), planEdge('menu', '1', 'bye'), planEdge('menu', 'timeout', 'bye'), planEdge('menu', 'invalid', 'bye')],
});

describe('without a licence', () => {
  test('the state says so, the default limits apply, and this server’s hardware id is shown for the vendor', async () => {
    const info = await get();
    expect(info).toMatchObject({ state: 'without_license', license: null, problem: null, limits: defaultLicenseLimits, hardware_id: hardwareId, sync_configured: false });
    expect(info.usage.tenants).toBeGreaterThanOrEqual(1);
  });

  test('only administrators read or change it', async () => {
    expect((await server.call({ method: 'GET', url: '/license', token: member.token })).statusCode).toBe(403);
    expect((await activate(issue(), member.token)).statusCode).toBe(403);
  });
});

describe('activation', () => {
  test('a valid licence is in force: its fields, its limits, who activated it, audited', async () => {
    const response = await activate(issue());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<LicenseInfo>()).toMatchObject({
      state: 'active',
      license: { serial: 'VXP-2026-0001', client: 'ACME Telecom', product: 'Voxplan', status: 'active', hardware_id: hardwareId },
      limits: { concurrent_sessions: 2, tenants: 4, numbers: 1 },
      activated_by: 'admin',
    });
    const audit = await server.call({ method: 'GET', url: `/audit?filter=${encodeURIComponent(JSON.stringify({ where: { entity: 'license' } }))}`, token: admin });
    expect(audit.json<Array<{ action: string; entity_id: string }>>()[0]).toMatchObject({ action: 'create', entity_id: 'VXP-2026-0001' });
  });

  test('pasted with its lines wrapped by a mail client, it still reads', async () => {
    const wrapped = issue().replace(/(.{60})/g, '$1\n  ');
    expect((await activate(wrapped)).statusCode).toBe(200);
  });

  test.each([
    ['expired', { expires_at: inDays(-1) }, 'expired'],
    ['blocked', { status: 'blocked' as const }, 'blocked'],
    ['canceled', { status: 'canceled' as const }, 'canceled'],
    ['a proof of concept', { status: 'poc' as const }, 'poc'],
  ])('%s: stored, shown as such, and only active or poc lift the defaults', async (_name, overrides, state) => {
    const info = (await activate(issue(overrides))).json<LicenseInfo>();
    expect(info.state).toBe(state);
    expect(info.limits).toEqual(state === 'poc' ? payload().limits : defaultLicenseLimits);
  });

  test('one for another server is refused, naming both hardware ids', async () => {
    const response = await activate(issue({ hardware_id: 'another-machine' }));
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'license_hardware_mismatch', params: { licensed: 'another-machine', actual: hardwareId } });
    expect((await get()).state).toBe('without_license');
  });

  test('a tampered one is refused: a changed limit breaks the signature', async () => {
    const [body, signature] = issue().split('.');
    const changed = JSON.parse(Buffer.from(body!, 'base64url').toString()) as LicensePayload;
    changed.limits.tenants = 1000;
    const response = await activate(`${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('license_invalid_signature');
  });

  test('one signed by a key other than the vendor’s is refused', async () => {
    const response = await activate(issue({}, stranger.privateKey));
    expect(errorOf(response).code).toBe('license_invalid_signature');
  });

  test('what is not a licence document, or an empty one, is refused with its code', async () => {
    expect(errorOf(await activate('hello world')).code).toBe('license_decrypt_error');
    expect(errorOf(await activate('')).code).toBe('invalid_input');
  });

  test('another licence in force stays until removed; the same serial renews', async () => {
    expect((await activate(issue())).statusCode).toBe(200);
    const second = await activate(issue({ serial: 'VXP-2026-0002' }));
    expect(second.statusCode).toBe(409);
    expect(errorOf(second).code).toBe('license_already_licensed');
    const later = inDays(730);
    const renewed = (await activate(issue({ expires_at: later }))).json<LicenseInfo>();
    expect(renewed.license?.expires_at).toBe(later);
    expect((await remove()).json<LicenseInfo>().state).toBe('without_license');
    expect((await activate(issue({ serial: 'VXP-2026-0002' }))).statusCode).toBe(200);
  });

  test('remove, refresh and sync without a licence answer license_not_found', async () => {
    for (const response of [await remove(), await server.call({ method: 'POST', url: '/license/refresh', token: admin }), await server.call({ method: 'POST', url: '/license/sync', token: admin })]) {
      expect(response.statusCode).toBe(404);
      expect(errorOf(response).code).toBe('license_not_found');
    }
  });
});

describe('expiry as time passes', () => {
  test('a licence that expires while the server runs stops lifting the limits then, without a restart', async () => {
    const info = (await activate(issue({ expires_at: new Date(Date.now() + 1500).toISOString(), limits: { concurrent_sessions: 2, tenants: 100, numbers: 100 } }))).json<LicenseInfo>();
    expect(info.state).toBe('active');
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect((await get()).state).toBe('expired');
    expect(await server.ctx.license.limits()).toEqual(defaultLicenseLimits);
  });

  test('the evaluation itself: before, at and after the date', () => {
    const document = issue({ expires_at: '2027-01-01T00:00:00.000Z' });
    const keys = trustedLicenseKeys(vendor.publicKey);
    const here = { hardware_id: hardwareId, installation_id: 'installation-1' };
    expect(evaluateLicense(document, keys, here, new Date('2026-12-31T23:59:59.000Z')).state).toBe('active');
    expect(evaluateLicense(document, keys, here, new Date('2027-01-01T00:00:00.000Z')).state).toBe('expired');
    expect(evaluateLicense(document, trustedLicenseKeys(undefined), here, new Date('2026-06-01T00:00:00.000Z'))).toMatchObject({ state: 'without_license', problem: 'invalid_signature' });
    const elsewhere = { ...here, hardware_id: 'moved-elsewhere' };
    expect(evaluateLicense(document, keys, elsewhere, new Date('2026-06-01T00:00:00.000Z'))).toMatchObject({ state: 'without_license', problem: 'hardware_mismatch' });
    // A licence for the installation holds on any machine, and on no other installation.
    const forInstallation = issue({ hardware_id: undefined, installation_id: 'installation-1', expires_at: null });
    expect(evaluateLicense(forInstallation, keys, elsewhere, new Date('2026-06-01T00:00:00.000Z'))).toMatchObject({ state: 'active', problem: null });
    expect(evaluateLicense(forInstallation, keys, { ...here, installation_id: 'installation-2' }, new Date())).toMatchObject({ state: 'without_license', problem: 'installation_mismatch' });
  });
});

describe('limits where they bite', () => {
  const createTenant = (name: string) => server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
  const createNumber = (number: string) => server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number, provider: 'twilio' } });

  test('tenants and numbers past the licence’s count are refused, and allowed again once it grows', async () => {
    const { usage } = await get();
    await activate(issue({ limits: { concurrent_sessions: 2, tenants: usage.tenants + 1, numbers: usage.numbers + 1 } }));
    expect((await createTenant('licence-fits')).statusCode).toBe(201);
    const refused = await createTenant('licence-one-too-many');
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'license_tenants_limit_reached', params: { max: usage.tenants + 1 } });
    expect((await createNumber('+551130009001')).statusCode).toBe(201);
    const number = await createNumber('+551130009002');
    expect(errorOf(number)).toMatchObject({ code: 'license_numbers_limit_reached', params: { max: usage.numbers + 1 } });
    // Nothing half-written: the refused rows are not there.
    expect((await get()).usage).toMatchObject({ tenants: usage.tenants + 1, numbers: usage.numbers + 1 });

    await activate(issue({ limits: { concurrent_sessions: 2, tenants: usage.tenants + 5, numbers: usage.numbers + 5 } }));
    expect((await createTenant('licence-one-too-many')).statusCode).toBe(201);
    expect((await createNumber('+551130009002')).statusCode).toBe(201);
  });

  test('calls and chats past the concurrent sessions are refused; test sessions are not counted; an end makes room', async () => {
    await activate(issue({ limits: { concurrent_sessions: 2, tenants: 100, numbers: 100 } }));
    const plan = await storePlan(server.ctx, member.tenantId, waitingPlan('Waits'));
    const call = (id: string, isTest = false) =>
      server.ctx.sessions.start({ id, tenant_id: member.tenantId, plan_id: plan, channel: 'voice', provider: 'twilio', direction: 'inbound', caller: '+1555', called: '+1556', is_test: isTest });
    await call('licence-call-1');
    await call('licence-call-2');
    await expect(call('licence-call-3')).rejects.toMatchObject({ statusCode: 403, code: 'license_sessions_limit_reached' });
    await expect(call('licence-test-1', true)).resolves.toMatchObject({ status: 'waiting' });
    expect((await get()).usage.concurrent_sessions).toBe(2);
    await server.ctx.sessions.handleTurn('licence-call-1', 'end', { type: 'hangup' });
    await expect(call('licence-call-3')).resolves.toMatchObject({ status: 'waiting' });
    for (const id of ['licence-call-2', 'licence-call-3']) await server.ctx.sessions.handleTurn(id, 'end', { type: 'hangup' });
  });
});

describe('a Twilio call the licence refuses', () => {
  const ACCOUNT = 'AC00000000000000000000000000000029';
  const TOKEN = 'licence-twilio-token';
  const NUMBER = '+551130009100';
  /** A callback as Twilio posts it, signed with the tenant's auth token over PUBLIC_URL + path. */
  const post = (path: string, callSid: string, extra: Record<string, string> = {}) => {
    const form = twilioCallForm({ account: ACCOUNT, callSid, from: '+14155550100', to: NUMBER }, extra);
    const request = signedTwilioCallback(TOKEN, server.ctx.config.publicUrl, path, form);
    return server.app.inject({ method: 'POST', url: request.url, headers: request.headers, payload: request.body });
  };

  test('hears that the lines are busy (not that the number does not exist), and its end is answered 204 as documented', async () => {
    await activate(issue({ limits: { concurrent_sessions: 1, tenants: 100, numbers: 100 } }));
    const integrations = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
    expect(integrations.statusCode, integrations.body).toBe(200);
    const plan = await storePlan(server.ctx, member.tenantId, waitingPlan('Waits on Twilio'));
    const number = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: NUMBER, provider: 'twilio', voice_plan_id: plan } });
    expect(number.statusCode, number.body).toBe(201);

    const refusals = async () => (await server.ctx.metrics!.sessionsRefused.get()).values.find((value) => value.labels.reason === 'license_sessions_limit_reached')?.value ?? 0;
    const refusedBefore = await refusals();
    const dashboard = async () => (await server.call({ method: 'GET', url: '/stats/system', token: member.token })).json<StatsSystem>().refusals;
    const dashboardBefore = (await dashboard()).refused_sessions;
    const first = await post('voice', 'CA-licence-1');
    expect(first.body).toContain('<Gather');
    const refused = await post('voice', 'CA-licence-2');
    expect(refused.statusCode).toBe(200);
    expect(refused.body).toMatch(/<Response><Say language="en-US"[^>]*>All our lines are busy\. Please call again later\. Goodbye\.<\/Say><Hangup\/><\/Response>$/);
    // Twilio then reports the refused call's end: no session was stored for it, and that is no error of Twilio's.
    const end = await post('status', 'CA-licence-2', { CallStatus: 'completed' });
    expect(end.statusCode, end.body).toBe(204);
    expect(await server.ctx.sessions.find('CA-licence-2')).toBeUndefined();
    // Counted for the operator (GET /metrics), by its reason.
    expect(await refusals()).toBe(refusedBefore + 1);
    // And on the dashboard's system status, which every instance reads from the database alike.
    expect(await dashboard()).toEqual({ window_s: 3600, refused_sessions: dashboardBefore + 1, last_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    // A tenant that speaks Portuguese: its refused callers hear so in Portuguese, with a voice that speaks it.
    const portuguese = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: 'licence-member', language: 'pt-BR' } });
    expect(portuguese.statusCode, portuguese.body).toBe(200);
    expect((await post('voice', 'CA-licence-4')).body).toMatch(/<Say language="pt-BR" voice="[^"]+">Todas as nossas linhas estão ocupadas\./);

    expect((await post('status', 'CA-licence-1', { CallStatus: 'completed' })).statusCode).toBe(204);
    const next = await post('voice', 'CA-licence-3');
    expect(next.body).toContain('<Gather');
    expect((await post('status', 'CA-licence-3', { CallStatus: 'completed' })).statusCode).toBe(204);
  });
});

describe('sync with the licence server', () => {
  const sync = () => server.call({ method: 'POST', url: '/license/sync', token: admin });
  const setServerUrl = async (value: string) => {
    const settings = await server.call({ method: 'GET', url: `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name: 'license_server_url' } }))}`, token: admin });
    const [setting] = settings.json<Array<{ id: number }>>();
    const response = await server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
    return response;
  };

  test('off by default: license_missing_configuration; the setting takes an http(s) address only', async () => {
    await activate(issue());
    expect(errorOf(await sync()).code).toBe('license_missing_configuration');
    const bad = await setServerUrl('ftp://licences.example');
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).code).toBe('invalid_setting_value');
  });

  test('renewed, blocked by the server, then unreachable: the licence follows the signed answers and survives the outage', async () => {
    await activate(issue());
    expect((await setServerUrl(`http://127.0.0.1:${(licenceServer.address() as AddressInfo).port}/sync`)).statusCode).toBe(200);

    licenceAnswer = { status: 200, body: { license: issue({ expires_at: inDays(800) }) } };
    const renewed = (await sync()).json<LicenseInfo>();
    expect(renewed).toMatchObject({ state: 'active', last_sync_result: 'renewed', sync_configured: true });
    expect(licenceRequests.at(-1)).toMatchObject({ serial: 'VXP-2026-0001', hardware_id: hardwareId });

    // An unsigned "blocked" is not believed.
    licenceAnswer = { status: 200, body: { license: 'blocked' } };
    expect(errorOf(await sync()).code).toBe('license_sync_error');
    expect((await get()).state).toBe('active');

    licenceAnswer = { status: 200, body: { license: issue({ status: 'blocked' }) } };
    expect((await sync()).json<LicenseInfo>()).toMatchObject({ state: 'blocked', last_sync_result: 'blocked', limits: defaultLicenseLimits });

    licenceAnswer = { status: 200, body: { license: issue({ status: 'active' }) } };
    expect((await sync()).json<LicenseInfo>().state).toBe('active');

    await new Promise<void>((resolve) => licenceServer.close(() => resolve()));
    licenceServer.closeAllConnections();
    const unreachable = await sync();
    expect(unreachable.statusCode).toBe(502);
    expect(errorOf(unreachable).code).toBe('license_sync_error');
    expect((await get())).toMatchObject({ state: 'active', last_sync_result: 'error' });
    await setServerUrl('');
  });
});

describe('the vendor’s tool (npm run licence)', () => {
  const tool = path.resolve(import.meta.dirname, '../src/cli/licence.ts');
  const run = (...args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', tool, ...args], { encoding: 'utf8' });

  test('keygen, hardware-id, issue and verify; what it issues with the vendor’s key activates', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-licence-tool-'));
    try {
      await run('keygen', '--out', dir);
      const publicKey = fs.readFileSync(path.join(dir, 'licence-public.txt'), 'utf8').trim();
      expect((await run('hardware-id')).stdout.trim()).toBe(hardwareId);
      const own = path.join(dir, 'own.lic');
      await run('issue', '--key', path.join(dir, 'licence-private.pem'), '--serial', 'VXP-TOOL-1', '--client', 'Tool test', '--hardware-id', hardwareId, '--expires', '2030-01-31', '--tenants', '7', '--out', own);
      const verified = JSON.parse((await run('verify', own, '--public-key', publicKey)).stdout) as LicensePayload;
      expect(verified).toMatchObject({ serial: 'VXP-TOOL-1', expires_at: '2030-01-31T23:59:59.999Z', limits: { concurrent_sessions: 10, tenants: 7, numbers: 10 } });
      // Not the vendor's key: the product does not believe it.
      await expect(run('verify', own)).rejects.toMatchObject({ stderr: expect.stringContaining('license_invalid_signature') });

      const vendorKeyFile = path.join(dir, 'vendor.pem');
      fs.writeFileSync(vendorKeyFile, vendor.privateKey);
      const issued = (await run('issue', '--key', vendorKeyFile, '--serial', 'VXP-TOOL-2', '--client', 'Tool test', '--hardware-id', hardwareId, '--status', 'poc')).stdout;
      expect((await activate(issued)).json<LicenseInfo>()).toMatchObject({ state: 'poc', license: { serial: 'VXP-TOOL-2', expires_at: null } });
      await expect(run('issue', '--key', vendorKeyFile, '--serial', 'VXP-TOOL-3', '--client', 'x', '--hardware-id', 'h', '--sessions', '0')).rejects.toMatchObject({
        stderr: expect.stringContaining('--sessions must be a whole number'),
      });
      // For the installation (the licence screen's id) rather than one machine; one of the two, not both.
      const { installation_id: installationId } = await get();
      const forInstallation = (await run('issue', '--key', vendorKeyFile, '--serial', 'VXP-TOOL-2', '--client', 'Tool test', '--installation-id', installationId)).stdout;
      expect((await activate(forInstallation)).json<LicenseInfo>()).toMatchObject({ state: 'active', license: { installation_id: installationId } });
      await expect(run('issue', '--key', vendorKeyFile, '--serial', 'VXP-TOOL-4', '--client', 'x', '--hardware-id', 'h', '--installation-id', 'i')).rejects.toMatchObject({
        stderr: expect.stringContaining('--installation-id or --hardware-id'),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Each run starts Node with tsx: seconds apiece on a busy machine.
  }, 180_000);
});
