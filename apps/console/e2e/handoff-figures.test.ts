/**
 * The hand-off figures a person reads (docs/handoff.md, "Outcomes"): after a known sequence of web
 * chats reaching a queue (taken and resolved, nobody online, nobody in time, the customer left
 * while waiting), the dashboard's period figures and hand-off table, and the reports' disposition
 * and end reason, show exactly those, in English and in Portuguese on the dark scheme.
 */
import type { Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from '../../server/test/asterisk-pbx.ts';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { storePlan } from '../../server/test/sessions-helpers.ts';
import { handoffPlan } from './chat-handoff.ts';
import { type ConsoleHarness, createNumber, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

const SITE = 'https://shop.example.com';
const group = 'handoff-figures';
// After each resize the page may have moved: the hand-off table is brought into view again.
const settle = (page: Page) => page.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded();

let harness: ConsoleHarness;
let member: TenantMember;
let number: PhoneNumber;
let nextAddress = 0;

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => harness.server.call({ method, url, token: member.token, ...(payload && { payload }) });

async function startChat(): Promise<string> {
  const started = await harness.server.app.inject({
    method: 'POST',
    url: `/api/v1/webchat/${number.webchat_key}/conversations`,
    remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`,
    headers: { origin: SITE },
  });
  expect(started.statusCode, started.body).toBe(200);
  return started.json<WebchatConversation>().conversation_id;
}

const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => harness.server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());

beforeAll(async () => {
  harness = await startConsole({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'handoff-figures');
  const queue = (await api('POST', '/destinations', { name: 'Shop support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] })).json<Destination>();
  const planId = await storePlan(harness.server.ctx, member.tenantId, handoffPlan(queue.id));
  number = await createNumber(harness.server, member.token, { number: '+551140003201', provider: 'webchat', chat_plan_id: planId, webchat_origins: [SITE] });

  // Taken and resolved.
  expect((await api('PUT', '/agents/me', { status: 'online' })).statusCode).toBe(200);
  const resolved = await conversationOf(await startChat());
  await api('POST', `/conversations/${resolved.id}/take`);
  await api('POST', `/conversations/${resolved.id}/close`, { outcome: 'resolved' });
  // Nobody took it in time.
  const timedOut = await conversationOf(await startChat());
  await harness.server.ctx.db.updateTable('conversations').set({ deadline_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', timedOut.id).execute();
  await harness.server.ctx.sessions.sweepTimeouts();
  // The customer left while waiting.
  const left = await startChat();
  await conversationOf(left);
  await harness.server.ctx.sessions.handleTurn(left, 'customer-left', { type: 'hangup' });
  // Nobody online.
  expect((await api('PUT', '/agents/me', { status: 'offline' })).statusCode).toBe(200);
  await startChat();
  await until('four reports', async () => ((await harness.server.ctx.db.selectFrom('call_reports').select('id').where('tenant_id', '=', member.tenantId).execute()).length === 4 ? true : undefined));
});

afterAll(() => harness?.close());

async function openDashboard(options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
  const { page } = await harness.newPage(options);
  await harness.signIn(page, member.username, member.password);
  await page.waitForURL('**/dashboard');
  return page;
}

const figure = (page: Page, key: string) => page.getByTestId(`figure-${key}-value`).textContent();
const cell = (row: ReturnType<Page['getByTestId']>, key: string) => row.locator(`[data-figure="${key}"]`).textContent();

describe('after taken+resolved, nobody in time, customer left, nobody online', () => {
  test('the dashboard counts 1 routed, 2 missed, 1 abandoned, none retained; the queue and the agent by name', async () => {
    const page = await openDashboard();
    await expect.poll(() => figure(page, 'chats')).toBe('4');
    expect(await figure(page, 'routed')).toBe('1');
    expect(await figure(page, 'missed')).toBe('2');
    expect(await figure(page, 'abandoned')).toBe('1');
    expect(await figure(page, 'retained')).toBe('0');
    expect(await figure(page, 'retention_rate')).toBe('0%');
    const queue = page.getByTestId('handoff-queue').filter({ hasText: 'Shop support' });
    await expect.poll(() => queue.isVisible()).toBe(true);
    expect({ handoffs: await cell(queue, 'handoffs'), taken: await cell(queue, 'taken'), missed: await cell(queue, 'missed'), abandoned: await cell(queue, 'abandoned'), waiting: await cell(queue, 'waiting_now') }).toEqual({
      handoffs: '4',
      taken: '1',
      missed: '2',
      abandoned: '1',
      waiting: '0',
    });
    const agent = page.getByTestId('handoff-agent');
    expect(await agent.count()).toBe(1);
    expect(await cell(agent, 'taken')).toBe('1');
    await page.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded();
    await screenshotStates(page, 'dashboard-handoffs-en', { group, settle });
  });

  test('in Portuguese on the dark scheme: the same figures, named in Portuguese', async () => {
    const page = await openDashboard({ locale: 'pt-BR', colorScheme: 'dark' });
    await expect.poll(() => figure(page, 'missed')).toBe('2');
    await expect.poll(() => page.getByText('Transferências para pessoas no período').isVisible()).toBe(true);
    expect(await page.getByText('Conversas perdidas (ninguém assumiu)').isVisible()).toBe(true);
    await page.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded();
    await screenshotStates(page, 'dashboard-handoffs-pt', { group, settle });
  });

  test('the reports say Routed / Resolved by a person, Missed, Abandoned with the dial status', async () => {
    const page = await openDashboard();
    await page.goto('/reports');
    const rows = page.getByTestId('table-row');
    await expect.poll(() => rows.count()).toBe(4);
    const text = (await rows.allInnerTexts()).join('\n');
    expect(text.match(/Missed/g)?.length).toBe(2);
    expect(text).toMatch(/Routed/);
    expect(text).toMatch(/Abandoned/);
    await screenshotStates(page, 'reports-handoffs-en', { group });
  });
});
