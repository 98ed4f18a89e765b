/**
 * Conversations across instances (issue 30, docs/conversations.md, "Live") in Chromium: two server
 * processes on one throwaway PostgreSQL, both serving the built console and the widget. The visitor's
 * widget, on a third-party page, talks to instance B; the agent's console is on instance A. The chat
 * handed over on B appears on A without a reload, the agent takes it, both write both ways live, and
 * the agent closes it back to the plan. The API-level twin: apps/server/test/conversations-instances.test.ts.
 */
import type { Destination, PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN } from '../../server/test/harness.ts';
import { postgresMissing, startPostgres } from '../../server/test/postgres-server.ts';
import { type Cleanups, createTenantMemberOver, type ServerProcess, startServerProcess } from '../../server/test/server-process.ts';
import {
  buildWidget,
  consoleMessages,
  queuePlaceLine,
  conversationRows,
  handoffPlan,
  openConversations,
  openShop,
  type ShopSite,
  startShopSite,
  widgetMessages,
} from './chat-handoff.ts';
import { type ConsoleBrowser, consoleDirEnv, launchConsoleBrowser } from './harness.ts';

// CI installs PostgreSQL (.ci/run): there a missing server is a failure, not a skip.
const missing = process.env.CI ? undefined : postgresMissing();
if (missing) console.warn(`conversations-instances.test.ts skipped: ${missing}`);

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.skipIf(missing)('an agent’s console on instance A, the visitor’s widget on instance B, one PostgreSQL', () => {
  const AGENT = { name: 'shop-instances', username: 'shop-instances-user', password: 'shop-instances-password-1' };
  let a: ServerProcess;
  let b: ServerProcess;
  let site: ShopSite;
  let number: PhoneNumber;
  /** The visitor's browser opens pages of the shop; the agent's, the console of A. */
  let visitorBrowser: ConsoleBrowser;
  let agentBrowser: ConsoleBrowser;

  beforeAll(async () => {
    const postgres = await startPostgres();
    cleanups.push(postgres.stop);
    const widget = await buildWidget();
    cleanups.push(widget.remove);
    // The same database, data directory and master key: two instances of one installation.
    const env = { ...consoleDirEnv(), WEBCHAT_DIR: widget.dir, DATABASE_URL: postgres.url, MASTER_KEY: '44'.repeat(32) };
    a = await startServerProcess(cleanups, env);
    b = await startServerProcess(cleanups, { ...env, DATA_DIR: a.env.DATA_DIR });
    const urlOf = (instance: ServerProcess) => `http://127.0.0.1:${instance.port}`;

    site = await startShopSite(() => ({ serverUrl: urlOf(b), key: number.webchat_key }));
    cleanups.push(site.close);
    agentBrowser = await launchConsoleBrowser(urlOf(a));
    cleanups.push(agentBrowser.close);
    visitorBrowser = await launchConsoleBrowser(urlOf(b));
    cleanups.push(visitorBrowser.close);

    const { token: admin } = await a.call<{ token: string }>('POST', '/login', ADMIN);
    const member = await createTenantMemberOver(a.call, admin, AGENT.name);
    const me = await a.call<{ id: number }>('GET', '/whoami', undefined, member.token);
    // Written on B, read on A: the queue, the plan and the number live in the shared database.
    const queue = await b.call<Destination>('POST', '/destinations', { name: 'Support queue', kind: 'chat', chat_target: 'queue', agent_ids: [me.id] }, member.token);
    const { name, settings, nodes, edges } = handoffPlan(queue.id);
    const plan = await b.call<{ id: number }>('POST', '/visual-plans', { name }, member.token);
    await b.call('PUT', `/visual-plans/${plan.id}/document`, { base_version: 1, settings, nodes, edges }, member.token);
    await b.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: 2 }, member.token);
    number = await b.call<PhoneNumber>('POST', '/numbers', { number: '+551140000311', provider: 'webchat', chat_plan_id: plan.id, webchat_origins: [site.origin] }, member.token);
  }, 180_000);

  test('the chat handed over on B appears live on A; the agent takes it, both write both ways, and the agent closes it back to the plan', async () => {
    const agent: Page = await openConversations(agentBrowser, AGENT);
    const visitor = await openShop(visitorBrowser, site);
    await expect.poll(() => widgetMessages(visitor)).toEqual(['Assistant: Hello! Let me find someone for you.', queuePlaceLine()]);

    // The hand-off happened on B: A's screen lists the chat without a reload, and counts it in the menu.
    await expect.poll(() => conversationRows(agent).count()).toBe(1);
    await expect.poll(() => agent.getByTestId('menu-conversations-count').innerText()).toBe('1');
    await conversationRows(agent).first().click();
    await expect.poll(() => consoleMessages(agent)).toEqual([expect.stringContaining('Hello! Let me find someone for you.'), expect.stringContaining('you are next in the queue')]);
    await agent.getByTestId('conversation-take').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Open');

    // The agent writes on A: the widget on B shows it with the agent's name, and their typing before it.
    const input = agent.getByTestId('conversation-input');
    await input.pressSequentially('One moment');
    await expect.poll(() => visitor.getByRole('status').innerText()).toBe(`${AGENT.name} is typing…`);
    await input.fill('Hi, this is the agent on A.');
    await input.press('Enter');
    await expect.poll(() => widgetMessages(visitor)).toContain(`${AGENT.name}Hi, this is the agent on A.`);

    // The visitor types and answers on B: A's chat view shows the typing, then the message, live.
    const field = visitor.getByRole('textbox', { name: 'Your message' });
    await field.pressSequentially('Hello');
    await expect.poll(() => agent.getByTestId('conversation-customer-typing').innerText()).toBe('The customer is typing…');
    await field.fill('Hello from the visitor on B');
    await field.press('Enter');
    await expect.poll(() => consoleMessages(agent)).toContainEqual(expect.stringContaining('Hello from the visitor on B'));

    // Closed back to the plan on A: the plan goes on, on B, through the block's answer exit.
    await agent.getByTestId('conversation-close').click();
    await agent.getByTestId('close-back').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Closed');
    await expect.poll(() => widgetMessages(visitor)).toContain('Assistant: The plan again: anything else?');
  });
});
