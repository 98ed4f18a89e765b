/**
 * Conversations (issue 30, docs/conversations.md) in Chromium with two browser contexts: a visitor
 * on a third-party page with the web chat widget talks to a plan that hands the chat to a queue; an
 * agent in the console takes it, both write, the agent transfers and closes back to the plan. The
 * same with a WhatsApp customer through the local Graph API (../../server/test/whatsapp-graph.ts). Also:
 * two agents taking one chat (one is told), a member transferring to a colleague by name, no agent
 * online (the block's busy exit), nobody taking it in time (no_answer), an outside desk writing and
 * closing through its reply URL, the queue destination's form by a member, and the screen in
 * Portuguese and dark, axe-clean.
 */
import type { Destination } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { isValidPlanWebhookSignature } from '../../server/src/modules/plan-webhook/plan-webhook.signature.ts';
import { signWhatsapp, whatsappDelivery, whatsappText } from '../../server/test/whatsapp-graph.ts';
import { consoleMessages, queuePlaceLine, conversationRows as rows, widgetMessages } from './chat-handoff.ts';
import {
  ana,
  billing,
  bruno,
  desk,
  graph,
  guest,
  harness,
  openConsole,
  opened,
  openShop,
  useConversationsServer,
  WHATSAPP_PHONE_ID,
  WHATSAPP_SECRET,
  whatsappNumber,
} from './conversations-setup.ts';
import { accessibilityViolations } from './harness.ts';

useConversationsServer();

describe('a WhatsApp customer handed to a person (the local Graph API)', () => {
  const CUSTOMER = '5511988887777';
  /** A message the customer writes: Meta's webhook delivery, signed with the app secret, over HTTP. */
  const customerWrites = async (id: string, text: string) => {
    const body = JSON.stringify(whatsappDelivery(whatsappText(CUSTOMER, id, text), WHATSAPP_PHONE_ID));
    const answer = await fetch(`${harness.baseUrl}/api/v1/hooks/whatsapp/${whatsappNumber.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, WHATSAPP_SECRET) },
      body,
    });
    expect(answer.status).toBe(200);
  };
  /** What reached the customer through the Graph API's messages endpoint. */
  const customerReceived = () => graph.sent.filter((request) => request.body.to === CUSTOMER).map((request) => request.body.text?.body);

  test('the agent takes the chat in the console, both write both ways, and the agent closes it back to the plan', async () => {
    const agent = await openConsole(ana);
    await customerWrites('wamid.e2e.1', 'Hi');
    await expect.poll(customerReceived).toEqual(['Hello! Let me find someone for you.', 'A person will be with you shortly: you are next in the queue.']);
    await expect.poll(() => rows(agent).count()).toBe(1);
    // Named by the WhatsApp profile name Meta sent with the message (whatsappContacts: "Ana"), the number in the view (issue 36).
    expect((await rows(agent).first().innerText()).split('\n')[0]).toBe('Ana');
    await rows(agent).first().click();
    await expect.poll(() => agent.getByTestId('conversation-view').innerText()).toContain(`+${CUSTOMER}`);
    await agent.getByTestId('conversation-take').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Open');

    // The agent's message goes out as a send of the Graph API.
    const input = agent.getByTestId('conversation-input');
    await input.fill('Hi, this is Ana.');
    await input.press('Enter');
    await expect.poll(customerReceived).toContain('Hi, this is Ana.');
    expect(graph.sent.at(-1)).toMatchObject({ url: `/graph/v23.0/${WHATSAPP_PHONE_ID}/messages`, authorization: 'Bearer EAAG-e2e-token', body: { messaging_product: 'whatsapp', type: 'text' } });

    // The customer's next delivery appears in the console without a reload.
    await customerWrites('wamid.e2e.2', 'My order is late');
    await expect.poll(() => consoleMessages(agent)).toContainEqual(expect.stringContaining('My order is late'));

    await agent.getByTestId('conversation-close').click();
    await agent.getByTestId('close-back').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Closed');
    await expect.poll(customerReceived).toContain('The plan again: anything else?');
  });
});

describe('an outside desk (a URL destination)', () => {
  test('the desk writes and closes through the reply URL with its token; the visitor sees it, and the customer’s later message reaches the desk signed', async () => {
    const visitor = await openShop('/desk');
    await expect.poll(() => desk.received.filter((request) => request.event === 'chat.handoff').length).toBe(1);
    const handoff = JSON.parse(desk.received.find((request) => request.event === 'chat.handoff')!.body) as { data: { session_id: string; reply: { url: string; token: string } } };
    const { url, token } = handoff.data.reply;
    // The reply URL is built on the server's public URL; the desk here reaches the same routes on the test's port.
    const reply = (route: string, payload: object) =>
      fetch(`${harness.baseUrl}${new URL(url).pathname}${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) });

    // The desk holds the chat once its `accepted` is stored: until then its token is not known yet.
    await expect.poll(async () => (await reply('/messages', { text: 'Hello, this is the help desk.' })).status).toBe(204);
    await expect.poll(() => widgetMessages(visitor)).toContain('Help deskHello, this is the help desk.');

    // The visitor answers: the desk gets it as a chat.message event, signed as docs/webhooks.md tells a receiver to check.
    const field = visitor.getByRole('textbox', { name: 'Your message' });
    await field.fill('My parcel never came');
    await field.press('Enter');
    await expect.poll(() => desk.received.filter((request) => request.event === 'chat.message').length).toBe(1);
    const event = desk.received.find((request) => request.event === 'chat.message')!;
    const secret = (await harness.server.call({ method: 'GET', url: '/webhook-secret', token: ana.token })).json<{ secret: string }>().secret;
    expect(isValidPlanWebhookSignature(secret, event)).toBe(true);
    expect(JSON.parse(event.body)).toMatchObject({ event: 'chat.message', tenant_id: ana.tenantId, data: { session_id: handoff.data.session_id, text: 'My parcel never came' } });

    // The desk closes back to the plan: the plan goes on from the block's answer exit.
    expect((await reply('/close', { outcome: 'back_to_plan' })).status).toBe(204);
    await expect.poll(() => widgetMessages(visitor)).toContain('Assistant: The plan again: anything else?');
  });
});

describe('presence follows the console, not the screen', () => {
  const presence = async () => (await harness.server.call({ method: 'GET', url: '/agents/me', token: ana.token })).json<{ status: string }>().status;

  test('an agent is online on any page, keeps the away they chose across pages, sees the menu count live, and is offline once the console closes', async () => {
    const { page: agent } = await harness.newPage();
    opened.push(agent);
    await harness.signIn(agent, ana.username, ana.password);
    await agent.goto('/dashboard');
    // The dashboard, not the Conversations screen: online all the same.
    await expect.poll(presence).toBe('online');

    // A chat comes: the menu's count shows it without a reload (its poll is every 30 s; this waits 15 s at most).
    const visitor = await openShop();
    await expect.poll(() => widgetMessages(visitor)).toEqual(['Assistant: Hello! Let me find someone for you.', queuePlaceLine()]);
    await expect.poll(() => agent.getByTestId('menu-conversations-count').innerText()).toBe('1');

    // Away, chosen on the Conversations screen, stays away on another page.
    await agent.getByRole('link', { name: /^Conversations/ }).first().click();
    await agent.getByTestId('agent-presence').getByText('Away').click();
    await expect.poll(presence).toBe('away');
    await agent.getByRole('link', { name: /^Dashboard/ }).first().click();
    await agent.waitForURL('**/dashboard');
    expect(await presence()).toBe('away');
    await agent.getByRole('link', { name: /^Conversations/ }).first().click();
    await agent.getByTestId('agent-presence').getByText('Online').click();
    await expect.poll(presence).toBe('online');

    // The console's last tab closes: offline.
    const [waiting] = (await harness.server.call({ method: 'GET', url: '/conversations?status=waiting', token: ana.token })).json<{ id: number }[]>();
    await harness.server.call({ method: 'POST', url: `/conversations/${waiting!.id}/take`, token: ana.token });
    await harness.server.call({ method: 'POST', url: `/conversations/${waiting!.id}/close`, token: ana.token, payload: { outcome: 'resolved' } });
    await opened.splice(opened.indexOf(agent), 1)[0]!.context().close();
    await expect.poll(presence).toBe('offline');
  });
});

describe('the queue destination form', () => {
  test('a member (who cannot list users) makes a chat destination a queue and picks its agents by name, with their presence', async () => {
    const { page } = await harness.newPage();
    // Closed after the test like every console: Ana, on any page of it, is online (the busy test needs nobody).
    opened.push(page);
    await harness.signIn(page, ana.username, ana.password);
    await page.goto('/destination');
    await page.getByTestId('destination-new').click();
    await page.getByTestId('destination-name').fill('Support queue');
    await page.getByTestId('destination-kind').click();
    await page.getByRole('option', { name: 'Chat', exact: true }).click();
    await page.getByTestId('destination-chat-target').getByText('A queue (agents in the console)').click();
    expect(await page.getByTestId('destination-uri').count()).toBe(0);
    // None chosen: the server's rule, in the person's words.
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('A queue needs at least one agent.').count()).toBeGreaterThan(0);
    await page.getByTestId('destination-agents').click();
    // The tenant's users and the administrator; not the guest. Bruno has no console open: offline.
    const brunoOption = page.getByRole('option', { name: /^bruno/ });
    await expect.poll(() => brunoOption.innerText()).toMatch(/^bruno\s+Offline$/);
    expect(await page.getByRole('option', { name: /^watcher/ }).count()).toBe(0);
    expect(await page.getByRole('option', { name: /^shop-user/ }).count()).toBe(1);
    await brunoOption.click();
    await page.keyboard.press('Escape');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination created.').count()).toBe(1);
    const stored = (await harness.server.call({ method: 'GET', url: '/destinations', token: ana.token })).json<Destination[]>().find((row) => row.name === 'Support queue');
    expect(stored).toMatchObject({ kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [bruno.userId] });
    await expect.poll(() => page.getByTestId('table-row').filter({ hasText: 'Support queue' }).innerText()).toContain('Queue · 1 agent');
  });
});

describe('a chat handed to a person', () => {
  test('the visitor is handed over, an agent takes the chat, both write, the agent transfers it and closes it back to the plan', async () => {
    const agent = await openConsole(ana);
    const other = await openConsole(bruno);
    const visitor = await openShop();
    await expect.poll(() => widgetMessages(visitor)).toEqual(['Assistant: Hello! Let me find someone for you.', queuePlaceLine()]);

    // The chat appears, live, in the waiting list of both agents of the queue, and in the menu's count.
    await expect.poll(() => rows(agent).count()).toBe(1);
    await expect.poll(() => rows(other).count()).toBe(1);
    await expect.poll(() => agent.getByTestId('menu-conversations-count').innerText()).toBe('1');
    await rows(agent).first().click();
    await expect.poll(() => consoleMessages(agent)).toEqual([expect.stringContaining('Hello! Let me find someone for you.'), expect.stringContaining('you are next in the queue')]);
    await agent.getByTestId('conversation-take').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Open');
    // Taken: it leaves the other agent's waiting list without a reload.
    await expect.poll(() => rows(other).count()).toBe(0);

    // The agent writes (Enter sends; Shift+Enter is a new line); the visitor sees it with the agent's name.
    const input = agent.getByTestId('conversation-input');
    await input.fill('Hi, I am Ana.');
    await input.press('Shift+Enter');
    await input.press('End');
    await input.pressSequentially('How can I help?');
    expect(await input.inputValue()).toBe('Hi, I am Ana.\nHow can I help?');
    await input.press('Enter');
    await expect.poll(() => widgetMessages(visitor)).toContain('shop-userHi, I am Ana.\nHow can I help?');
    await expect.poll(() => input.inputValue()).toBe('');

    // Typing shows in the widget as "<name> is typing…".
    await input.pressSequentially('One moment');
    await expect.poll(() => visitor.getByRole('status').innerText()).toBe('shop-user is typing…');
    await input.fill('');

    // The visitor types: the agent reads "The customer is typing…" in the chat view.
    const field = visitor.getByRole('textbox', { name: 'Your message' });
    const customerTyping = agent.getByTestId('conversation-customer-typing');
    expect(await customerTyping.innerText()).toBe('');
    await field.pressSequentially('I want');
    await expect.poll(() => customerTyping.innerText()).toBe('The customer is typing…');
    // The visitor answers: the agent sees it arrive, and the notice ends with it.
    await field.fill('I want a bigger plan');
    await field.press('Enter');
    await expect.poll(() => consoleMessages(agent)).toContainEqual(expect.stringContaining('I want a bigger plan'));
    await expect.poll(() => customerTyping.innerText()).toBe('');

    // Transfer to another queue by its shortcut: it is no longer the agent's, and waits in Billing for Bruno.
    await agent.keyboard.press('Alt+KeyR');
    await agent.getByTestId('transfer-target').click();
    await agent.getByRole('option', { name: 'Billing queue' }).click();
    await agent.getByTestId('transfer-confirm').click();
    await expect.poll(() => agent.getByText('The chat was transferred.').count()).toBe(1);
    await expect.poll(() => rows(other).count()).toBe(1);
    const inBilling = (await harness.server.call({ method: 'GET', url: '/conversations?status=waiting', token: bruno.token })).json<{ queue: { id: number } }[]>();
    expect(inBilling.map((row) => row.queue.id)).toEqual([billing.id]);
    await rows(other).first().click();
    await other.getByTestId('conversation-take').click();
    await expect.poll(() => other.getByTestId('conversation-status').textContent()).toBe('Open');

    // Closed back to the plan: the plan goes on through the block's answer exit.
    await other.getByTestId('conversation-close').click();
    await other.getByTestId('close-back').click();
    await expect.poll(() => other.getByTestId('conversation-status').textContent()).toBe('Closed');
    await expect.poll(() => widgetMessages(visitor)).toContain('Assistant: The plan again: anything else?');

    // The closed chat is found by its customer's words.
    await other.getByTestId('conversation-tab-closed').click();
    await other.getByTestId('conversation-search').fill('bigger plan');
    await expect.poll(() => rows(other).count()).toBe(1);

    // The chat's report shows its hand-off (one conversation, transferred to Billing), the agent by name, and what was said.
    await expect.poll(() => widgetMessages(visitor)).toContain('Assistant: Thanks for writing.');
    const report = await harness.server.ctx.db.selectFrom('call_reports').select('id').where('provider', '=', 'webchat').orderBy('id', 'desc').executeTakeFirstOrThrow();
    await other.goto(`/reports/${report.id}`);
    const handoffs = other.getByTestId('report-handoff-section');
    await expect.poll(() => handoffs.getByTestId('report-handoff').allInnerTexts()).toEqual([expect.stringContaining('Billing queue')]);
    expect(await handoffs.innerText()).toContain('bruno');
    expect(await handoffs.innerText()).toContain('Back to the plan');
    expect(await handoffs.getByTestId('report-handoff-messages').first().innerText()).toContain('I want a bigger plan');
  });

  test('two agents take the same chat: one has it, the other sees it taken and cannot write', async () => {
    const first = await openConsole(ana);
    const second = await openConsole(bruno);
    await openShop();
    await expect.poll(() => rows(first).count()).toBe(1);
    await expect.poll(() => rows(second).count()).toBe(1);
    await rows(first).first().click();
    await rows(second).first().click();
    await first.getByTestId('conversation-take').waitFor();
    await second.getByTestId('conversation-take').waitFor();
    await first.getByTestId('conversation-take').click();
    await expect.poll(() => first.getByTestId('conversation-status').textContent()).toBe('Open');
    // The second console may still show the button (its list had not heard yet): pressing it tells who won.
    if ((await second.getByTestId('conversation-take').count()) > 0) {
      await second.getByTestId('conversation-take').click().catch(() => undefined);
    }
    await expect.poll(() => second.getByTestId('conversation-status').textContent()).toBe('Open');
    expect(await second.getByTestId('conversation-input').count()).toBe(0);
    await first.getByTestId('conversation-close').click();
    await first.getByTestId('close-resolved').click();
    await expect.poll(() => first.getByTestId('conversation-status').textContent()).toBe('Closed');
  });

  test('the same race through the API: the second take is answered conversation_taken, and its console says so', async () => {
    // Ana is online; Bruno's console hears no events, so it still offers the chat after Ana took it.
    await openConsole(ana);
    const { page: second } = await harness.newPage();
    opened.push(second);
    await second.route('**/api/v1/conversations/events', (route) => route.abort());
    await harness.signIn(second, bruno.username, bruno.password);
    const visitor = await openShop();
    // The plan's greeting and the queue's place.
    await expect.poll(() => widgetMessages(visitor)).toHaveLength(2);
    await second.goto('/conversations');
    await expect.poll(() => rows(second).count()).toBe(1);
    await rows(second).first().click();
    await second.getByTestId('conversation-take').waitFor();
    const waiting = (await harness.server.call({ method: 'GET', url: '/conversations?status=waiting', token: ana.token })).json<{ id: number }[]>();
    const taken = await harness.server.call({ method: 'POST', url: `/conversations/${waiting[0]!.id}/take`, token: ana.token });
    expect(taken.statusCode, taken.body).toBe(200);
    await second.getByTestId('conversation-take').click();
    await expect.poll(() => second.getByTestId('conversation-taken').textContent()).toBe('Someone else took this chat first: shop-user.');
    // The screen reads the chat again: Ana's, and nothing for Bruno to write in.
    await expect.poll(() => second.getByTestId('conversation-status').textContent()).toBe('Open');
    expect(await second.getByTestId('conversation-input').count()).toBe(0);
    await harness.server.call({ method: 'POST', url: `/conversations/${waiting[0]!.id}/close`, token: ana.token, payload: { outcome: 'resolved' } });
  });

  test('a member transfers the chat to a colleague by name, seeing who is online: it is the colleague’s at once', async () => {
    const agent = await openConsole(ana);
    const other = await openConsole(bruno);
    await openShop();
    await expect.poll(() => rows(agent).count()).toBe(1);
    await rows(agent).first().click();
    await agent.getByTestId('conversation-take').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Open');
    await agent.keyboard.press('Alt+KeyR');
    const dialog = agent.getByRole('dialog');
    await dialog.locator('label', { hasText: 'Person' }).click();
    await agent.getByTestId('transfer-target').click();
    // Bruno's console is open, so he is online; Ana is not offered to herself.
    const colleague = agent.getByRole('option', { name: /^bruno/ });
    await expect.poll(() => colleague.innerText()).toMatch(/^bruno\s+Online$/);
    expect(await agent.getByRole('option', { name: /^shop-user/ }).count()).toBe(0);
    await colleague.click();
    await agent.getByTestId('transfer-confirm').click();
    await expect.poll(() => agent.getByText('The chat was transferred.').count()).toBe(1);
    // Bruno has it, open, among his own chats, without a reload.
    await other.getByTestId('conversation-tab-open').click();
    await expect.poll(() => rows(other).count()).toBe(1);
    const mine = (await harness.server.call({ method: 'GET', url: '/conversations?status=open', token: bruno.token })).json<{ id: number; agent: { id: number } }[]>();
    expect(mine.map((row) => row.agent.id)).toEqual([bruno.userId]);
    await harness.server.call({ method: 'POST', url: `/conversations/${mine[0]!.id}/close`, token: bruno.token, payload: { outcome: 'resolved' } });
  });

  test('no agent online: the plan takes the block busy exit at once', async () => {
    const visitor = await openShop();
    await expect.poll(() => widgetMessages(visitor)).toEqual(['Assistant: Hello! Let me find someone for you.', 'Assistant: Everyone is away; write to us later.', 'Assistant: Thanks for writing.']);
  });

  test('an agent is online but nobody takes the chat in time: the plan takes no_answer, and the chat leaves the waiting list live', async () => {
    const agent = await openConsole(ana);
    const visitor = await openShop();
    await expect.poll(() => rows(agent).count()).toBe(1);
    const [waiting] = (await harness.server.call({ method: 'GET', url: '/conversations?status=waiting', token: ana.token })).json<{ id: number }[]>();
    // The block's timeout_s (600 s) passed: the deadline is moved back rather than waited for, and
    // one pass of the sweep that every instance runs is made now instead of on its interval.
    await harness.server.ctx.db.updateTable('conversations').set({ deadline_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', waiting!.id).execute();
    await harness.server.ctx.sessions.sweepTimeouts();
    await expect.poll(() => widgetMessages(visitor)).toEqual([
      'Assistant: Hello! Let me find someone for you.',
      queuePlaceLine(),
      'Assistant: Nobody could answer in time; we will write back.',
      'Assistant: Thanks for writing.',
    ]);
    await expect.poll(() => rows(agent).count()).toBe(0);
    expect(await agent.getByTestId('menu-conversations-count').count()).toBe(0);
  });

  test('a guest reads the conversations and cannot answer; Portuguese and dark, axe-clean', async () => {
    const page = await openConsole(guest, { locale: 'pt-BR', colorScheme: 'dark' });
    await page.getByTestId('conversation-tab-closed').click();
    await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
    await rows(page).first().click();
    await expect.poll(() => page.getByTestId('conversation-status').textContent()).toBe('Encerrada');
    expect(await page.getByTestId('conversation-input').count()).toBe(0);
    expect(await page.getByTestId('agent-presence').count()).toBe(0);
    await expect.poll(() => page.getByText('Convidados leem as conversas e não podem respondê-las.').count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByTestId('conversation-help').click();
    await expect.poll(() => page.getByTestId('conversation-shortcuts').innerText()).toContain('Atender a conversa');
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
