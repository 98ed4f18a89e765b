/**
 * GET /metrics (docs/metrics.md): off without METRICS_TOKEN, refused without the token, and in
 * Prometheus' text format with it: the calls running by channel and provider, those started,
 * ended by disposition and refused by the licence, a Twilio webhook's time, the licence's use
 * against its limits, the read cache, and Node's own figures.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, sampleOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { signedTwilioCallback, twilioCallForm } from './twilio-callbacks.ts';

const TOKEN = 'metrics-scrape-token-0123456789';
const ACCOUNT = 'AC00000000000000000000000000000004';
const AUTH_TOKEN = 'metrics-twilio-token';
const NUMBER = '+551130000404';
let server: TestServer;
let member: TenantMember;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'metrics');
  await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: AUTH_TOKEN } });
  // Answers, then waits at a menu.
  const plan = await storePlan(server.ctx, member.tenantId, {
    name: 'Waits',
    nodes: [planNode('start', 'start'), planNode('ask', 'voice_menu', { voice_text: 'Press 1.', options: [{ digits: '1', label: 'One' }] }), planNode('bye', 'hangup')],
    edges: [planEdge('start', 'next', 'ask'), planEdge('ask', '1', 'bye')],
  });
  const created = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: NUMBER, provider: 'twilio', voice_plan_id: plan } });
  expect(created.statusCode, created.body).toBe(201);
});
afterAll(() => server?.close());

const scrape = (authorization?: string) => server.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

describe('GET /metrics', () => {
  test('refused without the token, or with another', async () => {
    expect((await scrape()).statusCode).toBe(401);
    expect((await scrape('Bearer not-the-token')).statusCode).toBe(401);
  });

  test('off while METRICS_TOKEN is not set', async () => {
    const other = await startTestServer();
    try {
      expect((await other.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });

  test('a Twilio call shows running, then ended, with its webhook timed; the licence use against its limits; Node figures', async () => {
    // Signed by the official library, as Twilio posts it (docs/channels-twilio.md).
    const hook = (form: Record<string, string>) => {
      const request = signedTwilioCallback(AUTH_TOKEN, server.ctx.config.publicUrl, 'voice', form);
      return server.app.inject({ method: 'POST', url: request.url, headers: request.headers, payload: request.body });
    };
    const form = twilioCallForm({ account: ACCOUNT, callSid: 'CA-metrics', from: '+14155550100', to: NUMBER });
    expect((await hook({ ...form, CallStatus: 'ringing' })).statusCode).toBe(200);

    const running = await scrape(`Bearer ${TOKEN}`);
    expect(running.statusCode).toBe(200);
    expect(running.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const during = running.body;
    expect(sampleOf(during, 'voxplan_sessions_running{channel="voice",provider="twilio"}')).toBe(1);
    expect(sampleOf(during, 'voxplan_sessions_started_total{channel="voice",provider="twilio"}')).toBe(1);
    expect(sampleOf(during, 'voxplan_turn_duration_seconds_count{provider="twilio"}')).toBe(1);
    expect(sampleOf(during, 'voxplan_license_usage{kind="concurrent_sessions"}')).toBe(1);
    expect(sampleOf(during, 'voxplan_license_limit{kind="concurrent_sessions"}')).toBe(1_000_000);
    expect(sampleOf(during, 'voxplan_database_up')).toBe(1);
    expect(sampleOf(during, 'voxplan_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(during).toMatch(/^voxplan_nodejs_eventloop_lag_seconds \d/m);
    expect(during).toMatch(/^voxplan_read_cache_hit_ratio \d/m);

    await server.ctx.sessions.handleTurn('CA-metrics', 'call-end', { type: 'hangup' });
    const after = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(sampleOf(after, 'voxplan_sessions_running{channel="voice",provider="twilio"}')).toBeUndefined();
    expect(sampleOf(after, 'voxplan_sessions_ended_total{channel="voice",provider="twilio",disposition="abandoned"}')).toBe(1);
  });
});
