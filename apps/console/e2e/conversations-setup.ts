/**
 * What the Conversations e2e tests share (conversations.test.ts): the server and the pages around
 * it, exported as live bindings set by useConversationsServer's hooks.
 */
import type { Destination, PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createTenantMember, createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { storePlan } from '../../server/test/sessions-helpers.ts';
import { type DeskReceiver, startDeskReceiver } from '../../server/test/desk-receiver.ts';
import { type GraphApi, startGraphApi } from '../../server/test/whatsapp-graph.ts';
import { buildWidget, handoffPlan, openConversations, openShop as openShopPage, type ShopSite, startShopSite } from './chat-handoff.ts';
import { type ConsoleHarness, createNumber, startConsole } from './harness.ts';

export let harness: ConsoleHarness;
export let widget: Awaited<ReturnType<typeof buildWidget>>;
export let site: ShopSite;
let adminToken: string;
export let ana: TenantMember;
export let bruno: TenantMember;
export let guest: TenantMember;
let sales: Destination;
export let billing: Destination;
let number: PhoneNumber;
let deskNumber: PhoneNumber;
export let graph: GraphApi;
export let whatsappNumber: PhoneNumber;
export const WHATSAPP_PHONE_ID = '106540352242930';
export const WHATSAPP_SECRET = 'meta-app-secret-e2e';
/** The outside desk (../../server/test/desk-receiver.ts): what it received, the hand-off and the customer's later messages. */
export let desk: DeskReceiver;

/** Each test's browsers, closed after it: an agent's console left open would keep them online for the next. */
export const opened: Page[] = [];

/**
 * Starts what the conversations' tests share, once per file: the widget built, the local Graph API,
 * the console, the shop's pages, the tenant with its agents, queues and numbers, and the outside
 * desk; closes each test's browsers after it and all of it after the file.
 */
export function useConversationsServer(): void {
  beforeAll(async () => {
    widget = await buildWidget();
    graph = await startGraphApi();
    harness = await startConsole({ WEBCHAT_DIR: widget.dir, WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
    // The shop's pages: `/` with the widget of the queue's number, `/desk` with the outside desk's.
    site = await startShopSite((url) => ({ serverUrl: harness.baseUrl, key: url === '/desk' ? deskNumber.webchat_key : number.webchat_key }));

    adminToken = await harness.server.login();
    ana = await createTenantMember(harness.server, adminToken, 'shop');
    bruno = await createTenantUser(harness.server, adminToken, ana.tenantId, 'bruno', 'user');
    guest = await createTenantUser(harness.server, adminToken, ana.tenantId, 'watcher', 'guest');
    const queue = async (name: string, agents: number[]) => {
      const created = await harness.server.call({ method: 'POST', url: '/destinations', token: ana.token, payload: { name, kind: 'chat', chat_target: 'queue', agent_ids: agents } });
      expect(created.statusCode, created.body).toBe(201);
      return created.json<Destination>();
    };
    sales = await queue('Sales queue', [ana.userId, bruno.userId]);
    billing = await queue('Billing queue', [bruno.userId]);
    const plan = await storePlan(harness.server.ctx, ana.tenantId, handoffPlan(sales.id));
    number = await createNumber(harness.server, ana.token, { number: '+551140000301', provider: 'webchat', chat_plan_id: plan, webchat_origins: [site.origin] });
    whatsappNumber = await createNumber(harness.server, ana.token, { number: '+551140000303', provider: 'whatsapp', chat_plan_id: plan, whatsapp_phone_number_id: WHATSAPP_PHONE_ID, whatsapp_token: 'EAAG-e2e-token', whatsapp_app_secret: WHATSAPP_SECRET });

    desk = await startDeskReceiver();
    // The desk listens on 127.0.0.1 over plain http, which the API's chat destinations (https only) and
    // the outbound policy refuse: the row is written as the API would write it, and loopback allowed.
    await harness.server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
    const now = new Date().toISOString();
    const deskDestination = await harness.server.ctx.db
      .insertInto('destinations')
      .values({ tenant_id: ana.tenantId, name: 'Help desk', kind: 'chat', chat_target: 'url', uri: desk.url, description: '', created_time: now, updated_time: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const deskPlan = await storePlan(harness.server.ctx, ana.tenantId, { ...handoffPlan(deskDestination.id), name: 'Desk chat' });
    deskNumber = await createNumber(harness.server, ana.token, { number: '+551140000302', provider: 'webchat', chat_plan_id: deskPlan, webchat_origins: [site.origin] });
  });

  afterAll(async () => {
    await harness?.close();
    await site?.close();
    await desk?.close();
    await graph?.close();
    widget?.remove();
  });

  afterEach(async () => {
    for (const page of opened.splice(0)) await page.context().close();
  });
}

/** A visitor on the shop's page with the chat open (`/desk`: the page whose chat goes to the outside desk). */
export async function openShop(pagePath = '/'): Promise<Page> {
  const page = await openShopPage(harness, site, pagePath);
  opened.push(page);
  return page;
}

/** An agent on the Conversations screen, online (the console's event stream is open). */
export async function openConsole(who: TenantMember, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
  const page = await openConversations(harness, who, options);
  opened.push(page);
  return page;
}
