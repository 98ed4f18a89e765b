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
import { insertReport, planEdge, planNode, storePlan } from '../../server/test/sessions-helpers.ts';
import { handoffPlan } from './chat-handoff.ts';
import { type ConsoleHarness, createNumber, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

const SITE = 'https://shop.example.com';
const group = 'handoff-figures';
// After each resize the page may have moved: the hand-off table is brought into view again.
const settle = (page: Page) => page.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded();

let harness: ConsoleHarness;
let member: TenantMember;
let owner: TenantMember | undefined;
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

/**
 * Another tenant, so the figures above stay theirs: a chat plan whose menu the person named
 * "Pick a topic", and one chat today that chose its option 2 there.
 */
async function chatMenuTenant(): Promise<TenantMember> {
  const admin = await harness.server.login();
  const owner = await createTenantMember(harness.server, admin, 'chat-menu-stats');
  const plan = {
    name: 'Help bot',
    // Placed one under the other, as the editor would: the heat map in the screenshots reads.
    nodes: [
      { ...planNode('start', 'start'), position: { x: 0, y: 0 } },
      {
        ...planNode('voice-menu-r2ue7i', 'voice_menu', { voice_text: 'Choose.', chat_text: 'Choose a topic.', options: [{ digits: '1', label: 'Orders' }, { digits: '2', label: 'Returns' }] }),
        position: { x: 0, y: 160 },
        label: 'Pick a topic',
      },
      { ...planNode('bye', 'hangup'), position: { x: 0, y: 420 } },
    ],
    edges: [planEdge('start', 'next', 'voice-menu-r2ue7i'), planEdge('voice-menu-r2ue7i', '2', 'bye')],
  };
  const planId = await storePlan(harness.server.ctx, owner.tenantId, plan);
  const at = new Date(Date.now() - 60_000).toISOString();
  await insertReport(harness.server.ctx, owner.tenantId, {
    sessionId: 'chat-menu-stats-1',
    startedAt: at,
    session: {
      plan_id: planId,
      channel: 'chat',
      provider: 'webchat',
      path: [
        { plan_id: planId, node_id: 'start', type: 'start', at, exit: 'next' },
        { plan_id: planId, node_id: 'voice-menu-r2ue7i', type: 'voice_menu', at, exit: '2' },
        { plan_id: planId, node_id: 'bye', type: 'hangup', at, exit: null },
      ],
      digits: [{ plan_id: planId, node_id: 'voice-menu-r2ue7i', digits: '2', at }],
    },
  });
  return owner;
}

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

  for (const { locale, colorScheme, agentLabel, queueLabel, state } of [
    { locale: 'en', colorScheme: 'light', agentLabel: 'Agent', queueLabel: 'Queue', state: 'reports-agent-queue-en' },
    { locale: 'pt-BR', colorScheme: 'dark', agentLabel: 'Agente', queueLabel: 'Fila', state: 'reports-agent-queue-pt' },
  ] as const) {
    test(`the reports name each chat's agent and queue, and filter by agent and by queue (${locale})`, async () => {
      const agentName = (await api('GET', '/agents')).json<{ id: number; name: string }[]>().find((agent) => agent.id === member.userId)!.name;
      const page = await openDashboard({ locale, colorScheme });
      await page.goto('/reports');
      const rows = page.getByTestId('table-row');
      await expect.poll(() => rows.count()).toBe(4);
      const headers = (await page.getByTestId('data-table').locator('thead th').allInnerTexts()).map((text) => text.trim());
      const column = async (label: string) => {
        const index = headers.indexOf(label);
        expect(index, `${label} in ${headers.join(' | ')}`).toBeGreaterThanOrEqual(0);
        return (await rows.locator(`td:nth-child(${index + 1})`).allInnerTexts()).map((text) => text.trim()).sort();
      };
      // Only the resolved chat was taken; all four reached the one queue.
      expect(await column(agentLabel)).toEqual([agentName, '—', '—', '—'].sort());
      expect(await column(queueLabel)).toEqual(['Shop support', 'Shop support', 'Shop support', 'Shop support']);
      // In view at 1280 px, without scrolling the table sideways.
      const agentCell = rows.locator('td', { hasText: agentName }).first();
      await expect.poll(() => agentCell.isVisible()).toBe(true);
      const box = await agentCell.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);

      await page.getByTestId('reports-filter-agent').click({ force: true });
      await page.getByRole('option', { name: new RegExp(`^${agentName}`) }).click();
      await page.keyboard.press('Escape');
      await expect.poll(() => rows.count()).toBe(1);
      await expect.poll(() => rows.first().textContent()).toContain(agentName);
      // The one row the agent's filter leaves, its Agent and Queue cells in view.
      await screenshotStates(page, state, { group, settle: (shot) => shot.getByTestId('data-table').scrollIntoViewIfNeeded() });
      await page.getByTestId('reports-filters-clear').click();
      await expect.poll(() => rows.count()).toBe(4);

      await page.getByTestId('reports-filter-queue').click({ force: true });
      await page.getByRole('option', { name: 'Shop support', exact: true }).click();
      await page.keyboard.press('Escape');
      await expect.poll(() => rows.count()).toBe(4);
    });
  }
});

describe("a chat plan's statistics (issue 36, 11c)", () => {
  for (const { locale, colorScheme, title, state } of [
    { locale: 'en', colorScheme: 'light', title: 'Options chosen per menu', state: 'plan-chat-menu-en' },
    { locale: 'pt-BR', colorScheme: 'dark', title: 'Opções escolhidas por menu', state: 'plan-chat-menu-pt' },
  ] as const) {
    test(`name the menu as the person named its block and say options chosen, never a voice menu or its id (${locale})`, async () => {
      owner ??= await chatMenuTenant();
      const { page } = await harness.newPage({ locale, colorScheme });
      await harness.signIn(page, owner.username, owner.password);
      await page.waitForURL('**/dashboard');
      const planRow = page.getByTestId('plan-stats-row').filter({ hasText: 'Help bot' });
      await expect.poll(() => planRow.isVisible()).toBe(true);
      await planRow.getByTestId('plan-stats-open').click();
      const detail = page.getByTestId('plan-detail');
      const menu = detail.getByTestId('plan-menu');
      await expect.poll(() => menu.isVisible()).toBe(true);
      await expect.poll(() => detail.getByText(title, { exact: true }).isVisible()).toBe(true);
      expect(await menu.getByText('Pick a topic', { exact: true }).isVisible()).toBe(true);
      expect(await menu.getByTestId('plan-menu-key').getAttribute('data-digits')).toBe('2');
      const shown = await detail.innerText();
      expect(shown).not.toMatch(/voice-menu-r2ue7i|voice menu|menu de voz|Keys pressed|Teclas/i);
      await menu.scrollIntoViewIfNeeded();
      await screenshotStates(page, state, { group: 'plan-chat-menu', settle: (shot) => shot.getByTestId('plan-menu').scrollIntoViewIfNeeded() });
    });
  }
});
