/**
 * A first day with the product (issue 36, "How to test it so that this does not happen again"),
 * walked through the console as the shop's support lead would, from a fresh install to a resolved
 * chat: the administrator makes the agent in the tenant the first start made, a chat queue with
 * them, a chat plan (imported, then handed to the queue with the "+" picker's ready block) that is
 * published, and a web chat by name whose tag shows right after it is saved. A customer writes from
 * the shop's page (another origin), the agent answers in a second browser and resolves it, and the
 * report and the dashboard show exactly that. Once in English, once in Portuguese on the dark
 * scheme; the second walk reuses the tenant with its own agent, queue, plan and web chat.
 */
import { queuePlaceMessages } from '@voxplan/contracts';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildWidget, conversationRows, openConversations, openShop, type ShopSite, startShopSite, widgetMessages } from './chat-handoff.ts';
import { chooseOption, type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

const group = 'first-day';

let harness: ConsoleHarness;
let widget: { dir: string; remove(): void };
let site: ShopSite;
/** The web chat key each page of the shop carries, by its path (one page per walk). */
const keys = new Map<string, string>();

beforeAll(async () => {
  widget = await buildWidget();
  harness = await startConsole({ WEBCHAT_DIR: widget.dir });
  site = await startShopSite((url) => ({ serverUrl: harness.baseUrl, key: keys.get(url ?? '/') ?? '', lang: url === '/loja' ? 'pt-BR' : 'en' }));
}, 180_000);

afterAll(async () => {
  await harness?.close();
  await site?.close();
  widget?.remove();
});

/** Whether the element is wholly inside the page's viewport: seen without scrolling. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  return box !== null && viewport !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height;
}
const visible = (locator: Locator) => locator.isVisible();
const figure = (page: Page, key: string) => page.getByTestId(`figure-${key}-value`).textContent();
const cell = (row: Locator, key: string) => row.locator(`[data-figure="${key}"]`).textContent();

const walks = [
  {
    locale: 'en-US',
    colorScheme: 'light',
    path: '/shop',
    agent: { username: 'ana', name: 'Ana Lima', email: 'ana@shop.example.com', password: 'ana-password-1' },
    customer: 'Carla Mendes',
    queue: 'Shop support',
    plan: 'Shop chat',
    planLanguage: 'en-US',
    number: 'Shop website',
    greeting: 'Hi! Someone from the shop will be with you shortly.',
    w: {
      customerFact: 'Customer',
      created: 'User created.',
      destinationCreated: 'Destination created.',
      chatKind: 'Chat',
      queueTarget: 'A queue (agents in the console)',
      imported: 'Plan “Shop chat” imported.',
      ready: 'Destination · Shop support',
      webchat: 'Web chat',
      open: 'Open chat',
      name: 'Your name',
      start: 'Start chat',
      message: 'Your message',
      ended: 'This conversation has ended.',
      restart: 'Start a new conversation',
      assistant: 'Assistant',
      you: 'You',
      routed: 'Routed',
      resolvedByPerson: 'Resolved by a person',
      resolved: 'Resolved',
    },
    question: 'Do you have the blue shoes in size 38?',
    reply: 'Yes, we do! I will reserve a pair for you.',
    closing: 'Thank you for contacting us. This conversation is now closed; write again whenever you need us.',
  },
  {
    locale: 'pt-BR',
    colorScheme: 'dark',
    path: '/loja',
    agent: { username: 'bruno', name: 'Bruno Souza', email: 'bruno@loja.example.com', password: 'bruno-password-1' },
    customer: 'Daniela Rocha',
    queue: 'Atendimento da loja',
    plan: 'Chat da loja',
    // The shop writes in Portuguese: its plan says so (the tenant the first start made speaks English).
    planLanguage: 'pt-BR',
    number: 'Site da loja',
    greeting: 'Olá! Uma pessoa da loja já vai atender você.',
    w: {
      customerFact: 'Cliente',
      created: 'Usuário criado.',
      destinationCreated: 'Destino criado.',
      chatKind: 'Chat',
      queueTarget: 'Uma fila (atendentes no console)',
      imported: 'Plano “Chat da loja” importado.',
      ready: 'Destino · Atendimento da loja',
      webchat: 'Chat na web',
      open: 'Abrir chat',
      name: 'Seu nome',
      start: 'Iniciar conversa',
      message: 'Sua mensagem',
      ended: 'Esta conversa foi encerrada.',
      restart: 'Iniciar uma nova conversa',
      assistant: 'Atendente',
      you: 'Você',
      routed: 'Encaminhada',
      resolvedByPerson: 'Resolvida por uma pessoa',
      resolved: 'Resolvida',
    },
    question: 'Vocês têm o sapato azul no tamanho 38?',
    reply: 'Temos, sim! Vou reservar um par para você.',
    closing: 'Obrigado pelo contato. Esta conversa foi encerrada; escreva de novo quando precisar.',
  },
] as const;

describe.each(walks.map((walk, index) => ({ ...walk, index })))('a first day ($locale, $colorScheme)', (walk) => {
  const { locale, colorScheme, w } = walk;
  const shots = { group };
  let lead: Page;
  let planId: number;

  test('the administrator signs in on the fresh install and makes the agent in the tenant the first start made', async () => {
    ({ page: lead } = await harness.newPage({ locale, colorScheme }));
    await harness.signIn(lead);
    // The support lead works in the shop's tenant: the one the first start made.
    await chooseOption(lead, 'tenant-picker', 'default');
    await lead.goto('/users');
    await lead.getByTestId('user-new').click();
    await lead.getByTestId('user-username').fill(walk.agent.username);
    await lead.getByTestId('user-name').fill(walk.agent.name);
    await lead.getByTestId('user-email').fill(walk.agent.email);
    await lead.getByTestId('user-password').fill(walk.agent.password);
    await chooseOption(lead, 'user-tenant', 'default');
    await lead.getByTestId('user-save').click();
    await expect.poll(() => lead.getByText(w.created).count()).toBe(1);
    await searchTable(lead, walk.agent.username, 1);
    expect(await visible(rowWith(lead, walk.agent.name))).toBe(true);
  });

  test('a chat queue with that agent, on the Destinations screen', async () => {
    await lead.goto('/destination');
    await lead.getByTestId('destination-new').click();
    await lead.getByTestId('destination-name').fill(walk.queue);
    await chooseOption(lead, 'destination-kind', w.chatKind);
    await lead.getByTestId('destination-chat-target').getByText(w.queueTarget).click();
    // Both choices read whole inside the dialog, at a laptop's width and a phone's.
    const target = lead.getByTestId('destination-chat-target');
    const dialogBox = async () => (await lead.getByRole('dialog').locator('form').boundingBox())!;
    for (const width of [1280, 390]) {
      await lead.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await expect.poll(async () => {
        const [box, form] = [(await target.boundingBox())!, await dialogBox()];
        return box.x >= form.x && box.x + box.width <= form.x + form.width + 0.5;
      }).toBe(true);
      expect(await target.locator('label').evaluateAll((labels) => labels.every((label) => label.scrollWidth <= label.clientWidth))).toBe(true);
    }
    await lead.setViewportSize({ width: 1366, height: 860 });
    await lead.getByTestId('destination-agents').click();
    await lead.getByRole('option', { name: walk.agent.name }).click();
    await lead.keyboard.press('Escape');
    await screenshotStates(lead, 'queue-form', shots);
    await lead.getByTestId('destination-save').click();
    await expect.poll(() => lead.getByText(w.destinationCreated).count()).toBe(1);
    expect(await visible(rowWith(lead, walk.queue))).toBe(true);
  });

  test('a chat plan: a greeting imported from a file, handed to the queue with a ready block, published', async () => {
    await lead.goto('/visual-plan');
    await lead.getByTestId('plan-import').click();
    const file = {
      name: walk.plan,
      description: '',
      settings: { session_timeout_min: 30, chat_text: '', sync_with_voice_text: false, webhook: '', language: walk.planLanguage },
      format_version: 1,
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        { id: 'hello', type: 'play_message', position: { x: 0, y: 160 }, data: { voice_text: walk.greeting, chat_text: walk.greeting } },
      ],
      edges: [{ id: 'start-next', source: 'start', source_exit: 'next', target: 'hello' }],
    };
    await lead.getByRole('dialog').locator('input[type=file]').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    await expect.poll(() => lead.getByTestId('plan-import-name').inputValue()).toBe(walk.plan);
    await lead.getByTestId('plan-import-save').click();
    await expect.poll(() => lead.getByText(w.imported).count()).toBe(1);

    await searchTable(lead, walk.plan, 1);
    await rowWith(lead, walk.plan).getByTestId('plan-open').click();
    const hello = lead.locator('[data-testid="plan-node"][data-node-id="hello"]');
    await hello.waitFor();
    await hello.getByTestId('exit-add-next').click();
    await lead.getByTestId('block-picker').getByTestId('ready-blocks').getByRole('button', { name: w.ready }).click();
    const handoff = lead.locator('[data-testid="plan-node"][data-node-type="destination"]');
    await expect.poll(() => handoff.count()).toBe(1);
    await expect.poll(() => handoff.textContent()).toContain(walk.queue);
    await screenshotStates(lead, 'plan-editor', shots);
    await lead.getByTestId('editor-publish').click();
    await lead.getByTestId('publish-dialog').getByTestId('confirm-publish').click();
    planId = Number(new URL(lead.url()).pathname.split('/').at(-1));
    await expect
      .poll(async () => (await harness.server.call({ method: 'GET', url: `/visual-plans/${planId}`, token: await harness.server.login() })).json<VisualPlan>().published_version)
      .not.toBeNull();
  });

  test('a web chat by name with that plan and the shop\'s origin, asking the name: its tag shows right after saving', async () => {
    await lead.goto('/numbers');
    await lead.getByTestId('number-new').click();
    await chooseOption(lead, 'number-provider', w.webchat);
    await lead.getByTestId('number-number').fill(walk.number);
    await chooseOption(lead, 'number-chat-plan', walk.plan);
    const origins = lead.getByTestId('number-webchat-origins');
    await origins.fill(site.origin);
    await origins.press('Enter');
    await lead.getByTestId('number-webchat-prechat-name').click();
    await lead.getByTestId('number-save').click();
    await expect.poll(() => visible(lead.getByTestId('number-webchat-created'))).toBe(true);
    const script = lead.getByTestId('number-webchat-script');
    expect(await visible(script)).toBe(true);
    expect(await inView(lead, script)).toBe(true);
    const key = (await script.inputValue()).match(/data-key="([^"]+)"/)?.[1];
    expect(key).toBeTruthy();
    keys.set(walk.path, key!);
    await screenshotStates(lead, 'webchat-saved', shots);
  });

  test('the customer writes from the shop, the agent takes it, replies and resolves it; the customer sees it end once', async () => {
    // The agent's console is open first: they are online, so the chat waits for them.
    const agent = await openConversations(harness, walk.agent, { locale, colorScheme });
    const customer = await openShop(harness, site, walk.path, { locale, colorScheme, openLabel: w.open });
    await customer.setViewportSize({ width: 390, height: 844 });
    await customer.getByRole('textbox', { name: w.name }).fill(walk.customer);
    await customer.getByRole('button', { name: w.start }).click();
    // The plan's greeting, then the queue tells the customer a person is coming (issue 36, 2), in the plan's language.
    const place = queuePlaceMessages[walk.planLanguage.startsWith('pt') ? 'pt' : 'en'].next;
    await expect.poll(() => widgetMessages(customer)).toEqual([`${w.assistant}: ${walk.greeting}`, `${w.assistant}: ${place}`]);
    // Issue 36, 1: the ended notice and its new start showed from the first second.
    const ended = customer.getByText(w.ended);
    const restart = customer.getByRole('button', { name: w.restart });
    expect(await ended.isHidden()).toBe(true);
    expect(await restart.isHidden()).toBe(true);
    const box = customer.getByRole('textbox', { name: w.message });
    expect(await inView(customer, box)).toBe(true);
    await box.fill(walk.question);
    await box.press('Enter');
    await expect.poll(() => widgetMessages(customer)).toContain(`${w.you}: ${walk.question}`);
    await screenshotStates(customer, 'widget-waiting', shots);

    // The agent sees the chat by the customer's name, takes it: the cursor is in the message box.
    const row = conversationRows(agent).filter({ hasText: walk.customer });
    await expect.poll(() => visible(row)).toBe(true);
    await screenshotStates(agent, 'agent-waiting', shots);
    await row.click();
    // The chat's details name the customer too (they said "Customer —" beside the named chat).
    const customerFact = agent.getByTestId('conversation-facts').getByRole('row').filter({ has: agent.locator('th', { hasText: new RegExp(`^${w.customerFact}$`) }) });
    await expect.poll(() => customerFact.locator('td').innerText()).toBe(walk.customer);
    await agent.getByTestId('conversation-take').click();
    const input = agent.getByTestId('conversation-input');
    await expect.poll(() => input.evaluate((element) => element === document.activeElement)).toBe(true);
    await input.fill(walk.reply);
    await input.press('Enter');
    await expect.poll(async () => (await widgetMessages(customer)).some((message) => message.endsWith(walk.reply))).toBe(true);
    await screenshotStates(agent, 'agent-replied', shots);

    await agent.getByTestId('conversation-close').click();
    await agent.getByTestId('close-resolved').click();
    await expect.poll(() => visible(ended)).toBe(true);
    expect(await visible(restart)).toBe(true);
    const said = await widgetMessages(customer);
    expect(said.filter((message) => message.endsWith(walk.closing))).toHaveLength(1);
    expect(said.at(-1)?.endsWith(walk.closing)).toBe(true);
    await screenshotStates(customer, 'widget-ended', shots);
    await agent.context().close();
    await customer.context().close();
  });

  test('the report says routed and resolved by a person, the agent and the queue by name; the dashboard counts the hand-off', async () => {
    await lead.goto('/reports');
    const report = rowWith(lead, walk.number);
    await expect.poll(() => report.count()).toBe(1);
    const line = await report.innerText();
    expect(line).toContain(w.routed);
    expect(line).toContain(w.resolvedByPerson);
    await screenshotStates(lead, 'reports', shots);
    await report.click();
    const facts = lead.getByTestId('report-handoff');
    await expect.poll(() => visible(facts)).toBe(true);
    const text = await facts.innerText();
    for (const said of [walk.queue, walk.agent.name, w.resolved]) expect(text).toContain(said);
    // The summary's hang-up cause reads whole: it ended in "…" at 1280 px.
    const cause = lead.locator('[data-value="resolved"]').first();
    expect(await cause.innerText()).toBe(w.resolvedByPerson.toUpperCase());
    expect(await cause.evaluate((element) => [...Array.from(element.querySelectorAll('*')), element].every((part) => part.scrollWidth <= part.clientWidth))).toBe(true);
    await screenshotStates(lead, 'report-detail', shots);

    // Chats of the tenant so far: one per walk, each taken and resolved.
    const chats = String(walk.index + 1);
    await lead.goto('/dashboard');
    await expect.poll(() => figure(lead, 'chats')).toBe(chats);
    expect({ routed: await figure(lead, 'routed'), missed: await figure(lead, 'missed'), abandoned: await figure(lead, 'abandoned'), retained: await figure(lead, 'retained'), rate: await figure(lead, 'retention_rate') }).toEqual({
      routed: chats,
      missed: '0',
      abandoned: '0',
      retained: '0',
      rate: '0%',
    });
    const queue = lead.getByTestId('handoff-queue').filter({ hasText: walk.queue });
    await expect.poll(() => visible(queue)).toBe(true);
    expect({ handoffs: await cell(queue, 'handoffs'), taken: await cell(queue, 'taken'), missed: await cell(queue, 'missed'), abandoned: await cell(queue, 'abandoned'), waiting: await cell(queue, 'waiting_now') }).toEqual({
      handoffs: '1',
      taken: '1',
      missed: '0',
      abandoned: '0',
      waiting: '0',
    });
    const agent = lead.getByTestId('handoff-agent').filter({ hasText: walk.agent.name });
    expect(await cell(agent, 'taken')).toBe('1');
    await lead.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded();
    await screenshotStates(lead, 'dashboard', { group, settle: (page) => page.getByTestId('dashboard-handoffs-queues').scrollIntoViewIfNeeded() });
  });
});
