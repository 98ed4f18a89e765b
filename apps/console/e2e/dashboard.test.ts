import { type CallReportRecord, LIVE_SESSIONS_LIMIT } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember } from '../../server/test/harness.ts';
import { seedReports } from '../../server/test/report-seeding.ts';
import { createTestDatabase, startPostgres } from '../../server/test/postgres-server.ts';
import { type ApiCall, type Cleanups, createTenantMemberOver, type ServerProcess, startServerProcess } from '../../server/test/server-process.ts';
import { insertReport, storePlan } from '../../server/test/sessions-helpers.ts';
import { connectSimulator } from '../../server/test/simulator-client.ts';
import { signedTwilioCallback, twilioActionOf, type TwilioForm } from '../../server/test/twilio-callbacks.ts';
import { accessibilityViolations, type ConsoleHarness, startConsole } from './harness.ts';

/**
 * The dashboard (docs/console.md): calls placed from outside through Twilio's signed voice hooks
 * appear in the live list as they start, move from block to block and leave it as they end; the
 * simulator's test sessions never show; the period's figures and the plan's drop-off heat map
 * match the calls made; and on two instances over PostgreSQL, a call whose hooks reach the other
 * instance moves the dashboard of the first.
 */
const PUBLIC_URL = 'https://voice.example.com';
const MASTER_KEY = '5a'.repeat(32);
const ACCOUNT = 'AC00000000000000000000000000000017';
const AUTH_TOKEN = 'dashboard-auth-token';

const node = (id: string, type: string, y: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y }, data });
/** Greets, then asks for a key: 1 leads to the goodbye; a caller who hangs up at the menu ends there. */
const menuPlan = {
  nodes: [
    node('start', 'start', 0),
    node('hello', 'play_message', 120, { voice_text: 'Welcome to the dashboard line.' }),
    node('ask', 'voice_menu', 240, { voice_text: 'Press 1 to finish.', options: [{ digits: '1', label: 'Finish' }] }),
    node('bye', 'hangup', 360),
  ],
  edges: [
    { id: 'e1', source: 'start', source_exit: 'next', target: 'hello' },
    { id: 'e2', source: 'hello', source_exit: 'next', target: 'ask' },
    { id: 'e3', source: 'ask', source_exit: '1', target: 'bye' },
  ],
};

/** A tenant with Twilio, the plan published and a number that runs it. */
async function setUpLine(base: string, adminToken: string, tenant: string, number: string) {
  const call = apiAt(base);
  const member = await createTenantMemberOver(call, adminToken, tenant);
  await call('PATCH', `/tenants/${member.tenantId}/integrations`, { twilio_sid: ACCOUNT, twilio_token: AUTH_TOKEN }, adminToken);
  const plan = await call<{ id: number; version: number }>('POST', '/visual-plans', { name: `${tenant} line` }, member.token);
  const saved = await call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...menuPlan }, member.token);
  await call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version }, member.token);
  await call('POST', '/numbers', { number, provider: 'twilio', voice_plan_id: plan.id }, member.token);
  return { member: { ...member, username: `${tenant}-user`, password: `${tenant}-password-1` }, planId: plan.id };
}

/** Calls to /api/v1 of the server at `base` that must succeed (the in-process one listens too). */
function apiAt(base: string): ApiCall {
  return async <T>(method: string, path: string, body?: unknown, token?: string): Promise<T> => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}

/** A phone call placed from outside: each step is Twilio calling the hooks of the server at `base`. */
function twilioCall(callSid: string, caller: string, number: string) {
  const form: TwilioForm = { AccountSid: ACCOUNT, CallSid: callSid, From: caller, To: number, Direction: 'inbound', CallStatus: 'in-progress' };
  let gather = '';
  const post = async (base: string, path: string, extra: TwilioForm) => {
    const { url, headers, body } = signedTwilioCallback(AUTH_TOKEN, PUBLIC_URL, path, { ...form, ...extra });
    const response = await fetch(`${base}${url}`, { method: 'POST', headers, body });
    const text = await response.text();
    expect(response.status, text).toBeLessThan(300);
    return text;
  };
  return {
    /** Rings: the plan greets and waits in the menu. */
    async answer(base: string) {
      const twiml = await post(base, 'voice', { CallStatus: 'ringing' });
      gather = twilioActionOf(twiml, 'Gather', PUBLIC_URL);
    },
    async press(base: string, digits: string) {
      await post(base, gather, { Digits: digits });
    },
    /** Twilio's status callback: the call is over. */
    async hangUp(base: string, seconds: number) {
      await post(base, 'status', { CallStatus: 'completed', CallDuration: String(seconds) });
    },
  };
}

type Member = Awaited<ReturnType<typeof setUpLine>>['member'];

const liveRows = (page: Page) => page.getByTestId('live-session');
const liveCount = (page: Page) => page.getByTestId('live-calls-value').textContent();

async function openDashboard(harness: ConsoleHarness, who: { username: string; password: string }, options?: { locale?: string; colorScheme?: 'light' | 'dark' }): Promise<Page> {
  const { page } = await harness.newPage(options);
  await harness.signIn(page, who.username, who.password);
  await page.waitForURL('**/dashboard');
  await expect.poll(() => page.getByTestId('live-status').getAttribute('data-status')).toBe('live');
  return page;
}

describe('the dashboard on one server', () => {
  let harness: ConsoleHarness;
  let member: Member;
  let planId: number;
  const number = '+551140001717';

  beforeAll(async () => {
    harness = await startConsole({ PUBLIC_URL, MASTER_KEY });
    const admin = await harness.server.login();
    ({ member, planId } = await setUpLine(harness.baseUrl, admin, 'dashboard', number));
  });
  afterAll(() => harness.close());

  test('a call appears as it starts, shows the block it is in, and leaves as it ends; test sessions never show; the figures match the calls', async () => {
    const page = await openDashboard(harness, member);
    await expect.poll(() => page.getByTestId('live-empty').isVisible()).toBe(true);
    expect(await liveCount(page)).toBe('0');

    // The editor's simulator runs the same plan: a test session, left out of the dashboard.
    const simulator = await connectSimulator(harness.baseUrl, planId, member.token);
    await simulator.turn({ type: 'start', channel: 'voice' });

    const first = twilioCall('CA-dashboard-1', '+14155550111', number);
    await first.answer(harness.baseUrl);
    const row = liveRows(page).filter({ hasText: '+14155550111' });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.textContent()).toMatch(/\+551140001717.*dashboard line.*Call.*Voice menu/);
    expect(await liveRows(page).count()).toBe(1);
    expect(await liveCount(page)).toBe('1');
    // Its duration ticks.
    const duration = () => row.locator('td').last().textContent();
    const before = await duration();
    await expect.poll(duration).not.toBe(before);

    // A second call; then the first presses 1 and hangs up, the second hangs up at the menu.
    const second = twilioCall('CA-dashboard-2', '+14155550122', number);
    await second.answer(harness.baseUrl);
    await expect.poll(() => liveCount(page)).toBe('2');
    await first.press(harness.baseUrl, '1');
    await first.hangUp(harness.baseUrl, 9);
    await expect.poll(() => row.count()).toBe(0);
    expect(await liveCount(page)).toBe('1');
    await second.hangUp(harness.baseUrl, 21);
    await expect.poll(() => page.getByTestId('live-empty').isVisible()).toBe(true);
    await simulator.close();

    // The day's figures: the two calls, by the dispositions their reports hold.
    const reports = await apiAt(harness.baseUrl)<CallReportRecord[]>('GET', `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { is_test: false } }))}`, undefined, member.token);
    expect(reports.map((report) => report.session_id).sort()).toEqual(['CA-dashboard-1', 'CA-dashboard-2']);
    const byDisposition = (disposition: string) => String(reports.filter((report) => report.disposition === disposition).length);
    const figure = async (name: string) => {
      await page.getByTestId('dashboard-refresh').click();
      return page.getByTestId(`figure-${name}-value`).textContent();
    };
    await expect.poll(() => figure('calls')).toBe('2');
    expect(await figure('sessions')).toBe('2');
    expect(await figure('chats')).toBe('0');
    for (const disposition of ['routed', 'retained', 'abandoned', 'failed']) expect(await figure(disposition), disposition).toBe(byDisposition(disposition));

    // Per plan: the line's two calls; its canvas shows where they ended (half at the menu, half
    // at the goodbye) and the menu's key 1 pressed once.
    const planRow = page.getByTestId('plan-stats-row').filter({ hasText: 'dashboard line' });
    await expect.poll(() => planRow.locator('td').nth(1).textContent()).toBe('2');
    await planRow.getByTestId('plan-stats-open').click();
    const detail = page.getByTestId('plan-detail');
    const badge = (nodeId: string) => detail.locator(`[data-testid="plan-node"][data-node-id="${nodeId}"] [data-testid="node-badge"]`);
    await expect.poll(() => badge('ask').textContent()).toBe('50%');
    expect(await badge('bye').textContent()).toBe('50%');
    expect(await badge('hello').count()).toBe(0);
    const keys = detail.locator('[data-testid="plan-menu"][data-node-id="ask"] [data-testid="plan-menu-key"]');
    await expect.poll(() => keys.evaluateAll((found) => found.map((key) => key.getAttribute('data-digits')))).toEqual(['1']);
    expect(await keys.first().textContent()).toContain('1 time (100%)');

    expect(await accessibilityViolations(page)).toEqual([]);
  });

  test('in Portuguese and the dark scheme: the figures in Portuguese, the chart drawn, nothing unreadable', async () => {
    const page = await openDashboard(harness, member, { locale: 'pt-BR', colorScheme: 'dark' });
    await page.getByText('Números do período').waitFor();
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('2');
    await expect.poll(() => page.getByTestId('daily-chart').locator('path.recharts-rectangle').count()).toBeGreaterThan(0);
    // Each day of the chart is in the table screen readers read: today has the two calls.
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    expect(await page.locator(`[data-testid="daily-table"] tr[data-day="${day}"] td`).nth(1).textContent()).toBe('2');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  test('a custom range of days: the day before has none of the calls, today both', async () => {
    const page = await openDashboard(harness, member);
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('2');
    await page.getByTestId('period-kind').getByText('Custom').click();
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('—');
    const dayName = (date: Date) => date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' });
    const pickDays = async (date: Date) => {
      await page.getByTestId('period-range').click();
      const day = page.getByRole('button', { name: dayName(date), exact: true }).first();
      await day.click();
      await day.click();
    };
    const today = new Date();
    await pickDays(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1));
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('0');
    await pickDays(today);
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('2');
    await page.getByTestId('period-kind').getByText('Last 7 days').click();
    await expect.poll(() => page.getByTestId('figure-calls-value').textContent()).toBe('2');
  });

  test('the refresh interval is remembered', async () => {
    const page = await openDashboard(harness, member);
    await page.getByTestId('dashboard-refresh-interval').click();
    await page.getByRole('option', { name: 'Every 30 s' }).click();
    await page.reload();
    await expect.poll(() => page.getByTestId('dashboard-refresh-interval').inputValue()).toBe('Every 30 s');
  });

  test(`a tenant with more than ${LIVE_SESSIONS_LIMIT} running calls: the most recent listed, all counted, as calls start and end`, async () => {
    const admin = await harness.server.login();
    const busy = await createTenantMember(harness.server, admin, 'dashboard-busy');
    const busyPlan = await storePlan(harness.server.ctx, busy.tenantId, { name: 'Busy', ...menuPlan });
    const callIn = (id: string) =>
      harness.server.ctx.sessions.start({ id, tenant_id: busy.tenantId, plan_id: busyPlan, channel: 'voice', provider: 'twilio', caller: `+1415${id.slice(-7)}`, called: number });
    const ids = Array.from({ length: LIVE_SESSIONS_LIMIT + 2 }, (_, index) => `CA-busy-${String(index).padStart(7, '0')}`);
    for (const id of ids) await callIn(id);

    const page = await openDashboard(harness, busy);
    await expect.poll(() => liveRows(page).count()).toBe(LIVE_SESSIONS_LIMIT);
    expect(await page.getByTestId('live-shown').textContent()).toBe(`${LIVE_SESSIONS_LIMIT} of ${ids.length}: the most recently started are listed`);
    expect(await liveCount(page)).toBe(String(ids.length));
    // The two oldest are the ones left out.
    expect(await liveRows(page).first().getAttribute('data-session-id')).toBe(ids[2]);

    // A new call is listed in place of the oldest listed; the count follows.
    await callIn('CA-busy-9999999');
    await expect.poll(() => liveRows(page).last().getAttribute('data-session-id')).toBe('CA-busy-9999999');
    expect(await liveRows(page).count()).toBe(LIVE_SESSIONS_LIMIT);
    await expect.poll(() => liveCount(page)).toBe(String(ids.length + 1));
    expect(await page.getByTestId('live-shown').textContent()).toBe(`${LIVE_SESSIONS_LIMIT} of ${ids.length + 1}: the most recently started are listed`);

    // A call that is not listed ends: counted down all the same.
    await harness.server.ctx.sessions.handleTurn(ids[0]!, 'hangup', { type: 'hangup' });
    await expect.poll(() => liveCount(page)).toBe(String(ids.length));
    expect(await page.getByTestId('live-shown').textContent()).toBe(`${LIVE_SESSIONS_LIMIT} of ${ids.length}: the most recently started are listed`);
  });

  test('a call whose prompt the PBX could not play turns the prompts card of the system status to a problem, with the URL and the reason', async () => {
    const admin = await harness.server.login();
    const tenant = await createTenantMember(harness.server, admin, 'dashboard-prompts');
    const page = await openDashboard(harness, tenant);
    const card = page.getByTestId('system-prompts');
    await expect.poll(() => card.getAttribute('data-status')).toBe('ok');
    expect(await card.textContent()).toContain('Every prompt played in the last hour');

    // A call's report as the AGI listener leaves it (asterisk-real.test.ts makes one through a real Asterisk).
    const { db, dialect } = harness.server.ctx;
    await seedReports(db, dialect, { tenantId: tenant.tenantId, count: 1, newest: new Date().toISOString(), prefix: 'prompt' });
    const message = 'the PBX could not play https://voice.example.com/api/v1/media/audios/9?exp=1&sig=x (audio_not_found)';
    await db.updateTable('call_reports').set({ failure: JSON.stringify({ code: 'prompt_unplayable', message, plan_id: 7, node_id: 'lost' }) }).where('session_id', '=', 'prompt-1').execute();
    await page.reload();
    await expect.poll(() => card.getAttribute('data-status')).toBe('problem');
    await expect.poll(() => card.textContent()).toMatch(/1 call in the last hour had a prompt the PBX could not play.*audios\/9.*audio_not_found/);
  });

  test('a call the licence refused turns the refusals card of the system status to a problem', async () => {
    const admin = await harness.server.login();
    const tenant = await createTenantMember(harness.server, admin, 'dashboard-refusals');
    const page = await openDashboard(harness, tenant);
    const card = page.getByTestId('system-refusals');
    await expect.poll(() => card.getAttribute('data-status')).toBe('ok');
    expect(await card.textContent()).toContain('No call or chat refused by the licence in the last hour');

    // The refusal as the licence service keeps it (license.test.ts makes one through a Twilio call).
    await harness.server.ctx.db
      .insertInto('session_refusals')
      .values({ tenant_id: tenant.tenantId, provider: 'twilio', reason: 'license_sessions_limit_reached', created_time: new Date().toISOString() })
      .execute();
    await page.reload();
    await expect.poll(() => card.getAttribute('data-status')).toBe('problem');
    await expect.poll(() => card.textContent()).toMatch(/1 call or chat refused in the last hour: every session the licence allows was in use.*Latest: /);
  });

  test('a newcomer who has only tested is told the test calls are not counted, and one click lists them in the reports', async () => {
    const admin = await harness.server.login();
    const tenant = await createTenantMember(harness.server, admin, 'dashboard-tests');
    await insertReport(harness.server.ctx, tenant.tenantId, { sessionId: 'SIM-dashboard', isTest: true, startedAt: new Date().toISOString(), session: { caller: '+15550004242' } });
    const page = await openDashboard(harness, tenant);
    const notice = page.getByTestId('hidden-tests');
    await expect.poll(() => notice.textContent()).toContain('1 test call (made from the test panel) is not counted here.');
    await notice.getByTestId('hidden-tests-show').click();
    await page.waitForURL(/\/reports\?/);
    await expect.poll(() => page.getByTestId('table-row').filter({ hasText: '+15550004242' }).count()).toBe(1);
    expect(await page.getByTestId('reports-filter-test').isChecked()).toBe(true);
  });

  test('memory and disk say how much is used of the total, not a bare percentage', async () => {
    const admin = await harness.server.login();
    const tenant = await createTenantMember(harness.server, admin, 'dashboard-memory');
    const page = await openDashboard(harness, tenant);
    const memory = page.getByTestId('system-memory');
    await expect.poll(() => memory.getAttribute('data-status')).not.toBe('unknown');
    const text = (await memory.textContent()) ?? '';
    expect(text).toMatch(/[\d.,]+ [kMGTP]?B of [\d.,]+ [kMGTP]?B used/);
    expect(text).not.toContain('%');
    expect((await page.getByTestId('system-disk').textContent()) ?? '').not.toContain('%');
  });
});

describe('the dashboard with two server instances on PostgreSQL', () => {
  const cleanups: Cleanups = [];
  let harness: ConsoleHarness;
  let other: ServerProcess;
  let member: Member;
  const number = '+551140002727';

  beforeAll(async () => {
    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    const database = await createTestDatabase(postgres.url);
    cleanups.push(database.drop);
    // The browser's instance runs in this process; the call's hooks reach another, a server process.
    harness = await startConsole({ DATABASE_URL: database.url, PUBLIC_URL, MASTER_KEY });
    cleanups.push(() => harness.close());
    other = await startServerProcess(cleanups, { DATABASE_URL: database.url, DATA_DIR: harness.server.config.dataDir, PUBLIC_URL, MASTER_KEY });
    const admin = await harness.server.login();
    ({ member } = await setUpLine(harness.baseUrl, admin, 'instances', number));
  }, 120_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test('a call on the other instance moves this instance’s dashboard, from start to end', async () => {
    const page = await openDashboard(harness, member);
    const elsewhere = `http://127.0.0.1:${other.port}`;
    const call = twilioCall('CA-dashboard-elsewhere', '+14155550133', number);
    await call.answer(elsewhere);
    const row = liveRows(page).filter({ hasText: '+14155550133' });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.getByTestId('live-session-block').textContent()).toBe('Voice menu');
    expect(await liveCount(page)).toBe('1');
    await call.press(elsewhere, '1');
    await call.hangUp(elsewhere, 5);
    await expect.poll(() => row.count()).toBe(0);
    expect(await liveCount(page)).toBe('0');
    await expect
      .poll(async () => {
        await page.getByTestId('dashboard-refresh').click();
        return page.getByTestId('figure-calls-value').textContent();
      })
      .toBe('1');
  });
});
