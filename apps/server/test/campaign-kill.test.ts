/**
 * A `kill -9` mid-campaign (issue 38, section 4), on PostgreSQL: two server processes dispatch one
 * campaign through the real outbound core against a local Twilio REST server (twilio-rest.ts); one
 * is killed while calls are under way. Twilio's status callbacks reach a third instance (this
 * process, which runs no dispatcher), so every outcome is learned by the recovery pass of the
 * processes: every contact is called exactly once, none lost, none twice.
 */
import twilio from 'twilio';
import { afterAll, describe, expect, test } from 'vitest';
import type { CampaignProgress } from '@voxplan/contracts';
import { campaignTenant, control, createCampaign, phoneList, uploadContacts } from './campaign-fixtures.ts';
import { dialect, startTestServer, type TestServer } from './harness.ts';
import { type Cleanups, startServerProcess } from './server-process.ts';
import { planNode, storePlan } from './sessions-helpers.ts';
import { startTwilioRest, type TwilioRest } from './twilio-rest.ts';

const PUBLIC_URL = 'https://campaigns.example.com';
const ACCOUNT = 'AC00000000000000000000000000003800';
const TOKEN = 'twilio-auth-token-campaigns';
const CONTACTS = 20;

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Posts Twilio's status callback for a created call, signed as Twilio signs it, to this process's app. */
function tellStatus(server: TestServer, created: { sid: string; form: URLSearchParams }, callStatus: string) {
  const url = created.form.get('StatusCallback')!;
  const form = { AccountSid: ACCOUNT, CallSid: created.sid, From: created.form.get('From')!, To: created.form.get('To')!, Direction: 'outbound-api', CallStatus: callStatus };
  return server.app.inject({
    method: 'POST',
    url: url.slice(PUBLIC_URL.length),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, url, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

describe.skipIf(dialect !== 'postgres')('kill -9 mid-campaign, two instances on PostgreSQL', () => {
  test('no contact lost, none dialled twice', async () => {
    const rest: TwilioRest = await startTwilioRest({ [ACCOUNT]: TOKEN });
    cleanups.push(() => rest.close());
    const server = await startTestServer({ PUBLIC_URL, TWILIO_API_URL: rest.url });
    cleanups.push(() => server.close());
    const admin = await server.login();
    const tenant = await campaignTenant(server, admin, 'kill');
    expect((await server.call({ method: 'PATCH', url: `/tenants/${tenant.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } })).statusCode).toBe(200);
    const planId = await storePlan(server.ctx, tenant.tenantId, { name: 'Kill reminder', nodes: [planNode('start', 'start'), planNode('bye', 'hangup')], edges: [] });
    const none = { attempts: 0, delay_min: 1 };
    const campaign = await createCampaign(server, { ...tenant, planId }, { calls_per_second: 20, max_concurrent: 8, retries: { busy: none, no_answer: none, failed: none, machine: none } });
    expect((await uploadContacts(server, tenant.token, campaign.id, phoneList(CONTACTS, 7000))).statusCode).toBe(201);

    const shared = { DATABASE_URL: server.config.databaseUrl!, MASTER_KEY: '11'.repeat(32), PUBLIC_URL, TWILIO_API_URL: rest.url, CAMPAIGN_CLAIM_LEASE: '2', LOG_LEVEL: 'error' };
    const [first, second] = await Promise.all([startServerProcess(cleanups, shared), startServerProcess(cleanups, shared)]);
    expect((await control(server, tenant.token, campaign.id, 'start')).statusCode).toBe(200);

    // Each call Twilio is asked for ends busy, told to this process; the first instance dies once a third are placed.
    let told = 0;
    let killed = false;
    const deadline = Date.now() + 90_000;
    for (;;) {
      while (told < rest.calls.length) {
        const answer = await tellStatus(server, rest.calls[told]!, 'busy');
        expect(answer.statusCode, answer.body).toBe(204);
        told++;
      }
      if (!killed && rest.calls.length >= CONTACTS / 3) {
        first.child.kill('SIGKILL');
        await first.exited;
        killed = true;
      }
      const progress = (await server.call({ method: 'GET', url: `/campaigns/${campaign.id}/progress`, token: tenant.token })).json<CampaignProgress>();
      if (progress.status === 'completed') {
        expect(progress).toMatchObject({ total: CONTACTS, done: CONTACTS, pending: 0, in_progress: 0, attempts: CONTACTS, by_outcome: { busy: CONTACTS } });
        break;
      }
      if (Date.now() > deadline) throw new Error(`not completed in time: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(killed).toBe(true);
    expect(second.child.exitCode).toBeNull();
    const dialled = rest.calls.map((call) => call.form.get('To'));
    expect(dialled).toHaveLength(CONTACTS);
    expect(new Set(dialled).size).toBe(CONTACTS);
  }, 150_000);
});
