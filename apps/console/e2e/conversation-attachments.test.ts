/**
 * Attachments in conversations (issue 30, docs/conversations.md "Attachments") in Chromium: an agent
 * holding a web chat sends an image from the console (the paperclip's upload) and a document by
 * dropping it on the message box; the console shows the image as a thumbnail and the document by
 * name and size, and the visitor's widget, on a third-party page, shows the image itself and the
 * document as a download link. A file the web chat does not take (too large, or of a type it
 * refuses) is refused before upload, saying why, in English and in Portuguese; both schemes,
 * axe-clean.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { Destination, PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { planEdge, planNode, storePlan } from '../../server/test/sessions-helpers.ts';
import { buildWidget, conversationRows, openConversations, openShop as openShopPage, type ShopSite, startShopSite } from './chat-handoff.ts';
import { screenshotStates } from './screenshots.ts';
import { accessibilityViolations, type ConsoleHarness, createNumber, startConsole } from './harness.ts';

/** A 1×1 PNG. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6e0a30000000049454e44ae426082', 'hex');
const PDF = '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n';

let harness: ConsoleHarness;
let widget: Awaited<ReturnType<typeof buildWidget>>;
let site: ShopSite;
let ana: TenantMember;
let number: PhoneNumber;

beforeAll(async () => {
  widget = await buildWidget();
  harness = await startConsole({ WEBCHAT_DIR: widget.dir });
  // The files' signed URLs name the public address: here, the port the test server listens on.
  (harness.server.config as { publicUrl: string }).publicUrl = harness.baseUrl;
  // The shop's pages under /pt are in Portuguese: the widget speaks the page's language.
  site = await startShopSite((path) => ({ serverUrl: harness.baseUrl, key: number.webchat_key, lang: path?.startsWith('/pt') ? 'pt-BR' : 'en' }));
  const adminToken = await harness.server.login();
  ana = await createTenantMember(harness.server, adminToken, 'files');
  const queue = await harness.server.call({ method: 'POST', url: '/destinations', token: ana.token, payload: { name: 'Files queue', kind: 'chat', chat_target: 'queue', agent_ids: [ana.userId] } });
  expect(queue.statusCode, queue.body).toBe(201);
  const plan = await storePlan(harness.server.ctx, ana.tenantId, {
    name: 'Files chat',
    version: 1,
    format_version: 1,
    settings: { session_timeout_min: 10, chat_text: 'Closing this idle chat.', sync_with_voice_text: false, webhook: '' },
    nodes: [
      planNode('start', 'start'),
      planNode('hello', 'play_message', { voice_text: 'Hello.', chat_text: 'Hello! Let me find someone for you.' }),
      planNode('queue', 'destination', { destination_id: queue.json<Destination>().id, timeout_s: 600 }),
    ],
    edges: [planEdge('start', 'next', 'hello'), planEdge('hello', 'next', 'queue')],
  });
  number = await createNumber(harness.server, ana.token, { number: '+551140000330', provider: 'webchat', chat_plan_id: plan, webchat_origins: [site.origin] });
});

afterAll(async () => {
  await harness?.close();
  await site?.close();
  widget?.remove();
});

const opened: Page[] = [];
afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close();
});

async function openShop(path = '/', options: { locale?: string; colorScheme?: 'light' | 'dark'; openLabel?: string } = {}): Promise<Page> {
  const page = await openShopPage(harness, site, path, options);
  opened.push(page);
  return page;
}

/** Ana on the Conversations screen with the visitor's chat taken. */
async function takeChat(options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<{ agent: Page; visitor: Page }> {
  const agent = await openConversations(harness, ana, options);
  opened.push(agent);
  const visitor = await openShop();
  await expect.poll(() => conversationRows(agent).count()).toBe(1);
  await conversationRows(agent).first().click();
  await agent.getByTestId('conversation-take').click();
  await agent.getByTestId('conversation-input').waitFor();
  return { agent, visitor };
}

const closeChat = async (agent: Page) => {
  await agent.getByTestId('conversation-close').click();
  await agent.getByTestId('close-resolved').click();
  await expect.poll(() => agent.getByTestId('conversation-status').textContent()).not.toBe('Open');
};

/** Whether an image has loaded (its pixels came), in whatever document it is. */
const loaded = (image: ReturnType<Page['locator']>) => image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0);

const storedFiles = async () => Number((await harness.server.ctx.db.selectFrom('conversation_attachments').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);

describe('an agent sends files', () => {
  test('an image from the paperclip (Alt+U) and a document dropped on the box: the console and the visitor’s widget show them', async () => {
    const { agent, visitor } = await takeChat();
    await agent.getByTestId('conversation-input').fill('Your receipt:');
    await agent.keyboard.press('Alt+KeyU');
    await agent.getByTestId('conversation-upload').waitFor();
    await agent.getByTestId('conversation-file-input').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: PNG });

    // The console: a thumbnail, with the name and size.
    const attachment = agent.getByTestId('conversation-transcript').getByTestId('conversation-attachment');
    await expect.poll(() => attachment.allInnerTexts()).toEqual([expect.stringMatching(/^receipt\.png \(\d+ byte/)]);
    await expect.poll(() => loaded(agent.getByTestId('conversation-attachment-image'))).toBe(true);
    expect(await agent.getByTestId('conversation-input').inputValue()).toBe('');

    // The widget, on the shop's page: the text and the image itself.
    const widgetImage = visitor.locator('.msg.agent .file-image img');
    await expect.poll(() => widgetImage.count()).toBe(1);
    expect(await widgetImage.getAttribute('alt')).toBe('receipt.png');
    await expect.poll(() => loaded(widgetImage)).toBe(true);
    expect(await visitor.locator('.msg.agent').first().innerText()).toContain('Your receipt:');

    // A document dropped on the message box: by name and size in the console, a download link in the widget.
    await agent.getByTestId('conversation-input').evaluate((target, content) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], 'terms.pdf', { type: 'application/pdf' }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, PDF);
    await expect.poll(() => attachment.allInnerTexts()).toEqual([expect.stringContaining('receipt.png'), expect.stringMatching(/^terms\.pdf \(\d+ byte/)]);
    await expect.poll(() => visitor.locator('.msg.agent a[data-file]').allInnerTexts()).toEqual([`Download terms.pdf (${PDF.length} B)`]);
    await closeChat(agent);
  });

  test('a file the web chat does not take is refused before upload, saying why; in Portuguese and dark too, axe-clean', async () => {
    const { agent } = await takeChat();
    const before = await storedFiles();
    const uploads: string[] = [];
    agent.on('request', (request) => {
      if (request.url().includes('/attachments')) uploads.push(request.url());
    });
    const input = agent.getByTestId('conversation-file-input');
    await input.setInputFiles({ name: 'video.mp4', mimeType: 'video/mp4', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
    await expect.poll(() => agent.getByTestId('conversation-attach-error').innerText()).toBe('This file is bigger than this chat’s channel takes (10 MB for this type).'.replace('’', "'"));
    await input.setInputFiles({ name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') });
    await expect.poll(() => agent.getByTestId('conversation-attach-error').innerText()).toBe("This chat's channel does not take application/x-msdownload files.");
    expect(uploads).toEqual([]);
    expect(await storedFiles()).toBe(before);
    expect(await accessibilityViolations(agent)).toEqual([]);
    await closeChat(agent);

    const { agent: portuguese } = await takeChat({ locale: 'pt-BR', colorScheme: 'dark' });
    await portuguese.getByTestId('conversation-file-input').setInputFiles({ name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') });
    await expect.poll(() => portuguese.getByTestId('conversation-attach-error').innerText()).toBe('O canal desta conversa não aceita arquivos application/x-msdownload.');
    expect(await accessibilityViolations(portuguese)).toEqual([]);
    await portuguese.getByTestId('conversation-file-input').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await expect.poll(() => loaded(portuguese.getByTestId('conversation-attachment-image'))).toBe(true);
    expect(await accessibilityViolations(portuguese)).toEqual([]);
    await closeChat(portuguese);
  });
});

/** A 160×100 picture (sky over grass), big enough to be seen in the widget's screenshots. */
function picture(): Buffer {
  const [width, height] = [160, 100];
  const stride = width * 3 + 1;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set(y < 60 ? [0x74, 0xc0, 0xfc] : [0x2f, 0x9e, 0x44], y * stride + 1 + x * 3);
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framing = Buffer.alloc(8);
    framing.writeUInt32BE(data.length, 0);
    framing.writeUInt32BE(crc32(body), 4);
    return Buffer.concat([framing.subarray(0, 4), body, framing.subarray(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2], 8); // 8 bits per channel, truecolour
  return Buffer.concat([PNG.subarray(0, 8), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

/** A program, whatever name it is given. */
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64)]);
type Upload = { name: string; mimeType: string; buffer: Buffer };

/** The visitor picks files as a person does: the paperclip, then the browser's file chooser. */
async function pick(visitor: Page, attachLabel: string, ...files: Upload[]): Promise<void> {
  const chooser = visitor.waitForEvent('filechooser');
  await visitor.getByRole('button', { name: attachLabel }).click();
  await (await chooser).setFiles(files);
}

/** The visitor's uploads this page sent. */
function uploadsOf(visitor: Page): string[] {
  const uploads: string[] = [];
  visitor.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/files')) uploads.push(request.url());
  });
  return uploads;
}

const takeAndClose = async (sessionCount: number) => {
  const waiting = await harness.server.ctx.db.selectFrom('conversations').select('id').where('status', '<>', 'closed').execute();
  expect(waiting).toHaveLength(sessionCount);
  for (const { id } of waiting) {
    await harness.server.call({ method: 'POST', url: `/conversations/${id}/take`, token: ana.token });
    expect((await harness.server.call({ method: 'POST', url: `/conversations/${id}/close`, token: ana.token, payload: { outcome: 'resolved' } })).statusCode).toBe(200);
  }
};

describe('a visitor sends files (issue 36, 13)', () => {
  test('on the shop’s page: an image from the paperclip and a PDF dropped on the conversation, their upload shown going; the agent sees both; a refused file is never sent', async () => {
    const agent = await openConversations(harness, ana);
    opened.push(agent);
    const visitor = await openShop();
    const uploads = uploadsOf(visitor);
    await expect.poll(() => conversationRows(agent).count()).toBe(1);
    // Waiting in the queue: the paperclip is there, beside the message field.
    await expect.poll(() => visitor.getByRole('button', { name: 'Attach a file' }).isVisible()).toBe(true);

    // Refused before upload, saying why.
    const alert = visitor.getByRole('alert');
    await pick(visitor, 'Attach a file', { name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: EXE });
    await expect.poll(() => alert.innerText()).toBe('This chat does not take application/x-msdownload files.');
    await pick(visitor, 'Attach a file', { name: 'film.mp4', mimeType: 'video/mp4', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
    await expect.poll(() => alert.innerText()).toBe('This file is too big: this chat takes up to 10 MB of this type.');
    expect(uploads).toEqual([]);

    // The image goes up: held on its way, the widget shows it going.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await visitor.route('**/files', async (route) => {
      await held;
      await route.continue();
    });
    await pick(visitor, 'Attach a file', { name: 'receipt.png', mimeType: 'image/png', buffer: picture() });
    const sending = visitor.locator('.msg.uploading');
    await expect.poll(() => sending.isVisible()).toBe(true);
    expect(await sending.innerText()).toBe('Sending receipt.png…');
    expect(await alert.innerText()).toBe('');
    await screenshotStates(visitor, 'visitor-file-sending', { group: 'conversation-attachments' });
    release();
    const image = visitor.locator('.msg.user .file-image img');
    await expect.poll(() => image.count()).toBe(1);
    await expect.poll(() => loaded(image)).toBe(true);
    expect(await image.getAttribute('alt')).toBe('receipt.png');
    expect(await sending.count()).toBe(0);

    // A PDF dropped on the conversation: a link with its name and size.
    await visitor.getByRole('log').evaluate((target, content) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], 'invoice.pdf', { type: 'application/pdf' }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, PDF);
    await expect.poll(() => visitor.locator('.msg.user a[data-file]').allInnerTexts()).toEqual([`Download invoice.pdf (${PDF.length} B)`]);
    expect(uploads).toHaveLength(2);
    expect(await accessibilityViolations(visitor)).toEqual([]);
    await screenshotStates(visitor, 'visitor-files', { group: 'conversation-attachments' });

    // The agent, in another browser: both files in the chat, the image itself.
    await conversationRows(agent).first().click();
    await agent.getByTestId('conversation-take').click();
    const attachments = agent.getByTestId('conversation-transcript').getByTestId('conversation-attachment');
    await expect.poll(() => attachments.allInnerTexts()).toEqual([expect.stringMatching(/^receipt\.png \(\d+ byte/), expect.stringMatching(/^invoice\.pdf \(\d+ byte/)]);
    await expect.poll(() => loaded(agent.getByTestId('conversation-attachment-image'))).toBe(true);
    await expect.poll(() => agent.getByTestId('conversation-attachment-image').isVisible()).toBe(true);
    await closeChat(agent);
    // The chat is over: no more files.
    await expect.poll(() => visitor.getByRole('button', { name: 'Attach a file' }).isHidden()).toBe(true);
  });

  test('in Portuguese, dark, at 390 px: the paperclip in view, a refusal in the widget’s language, an image picked and a PDF pasted; axe-clean', async () => {
    // Someone is online for the queue: the chat waits there, where files go.
    const agent = await openConversations(harness, ana);
    opened.push(agent);
    const visitor = await openShop('/pt', { locale: 'pt-BR', colorScheme: 'dark', openLabel: 'Abrir chat' });
    await visitor.setViewportSize({ width: 390, height: 844 });
    const attach = visitor.getByRole('button', { name: 'Anexar um arquivo' });
    await expect.poll(() => attach.isVisible()).toBe(true);
    const box = (await attach.boundingBox())!;
    expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844).toBe(true);
    await pick(visitor, 'Anexar um arquivo', { name: 'nota.pdf', mimeType: 'application/pdf', buffer: EXE });
    // The browser took it for a PDF by its name; the server read a program, and the widget says so.
    await expect.poll(() => visitor.getByRole('alert').innerText()).toBe('Este arquivo não é o arquivo application/pdf que o nome indica; não foi enviado.');
    await screenshotStates(visitor, 'visitor-file-refused', { group: 'conversation-attachments' });
    await pick(visitor, 'Anexar um arquivo', { name: 'recibo.png', mimeType: 'image/png', buffer: picture() });
    await expect.poll(() => loaded(visitor.locator('.msg.user .file-image img'))).toBe(true);
    expect(await visitor.getByRole('alert').innerText()).toBe('');
    // A file pasted in the message field goes as one too.
    await visitor.getByRole('textbox', { name: 'Sua mensagem' }).evaluate((field, content) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], 'pedido.pdf', { type: 'application/pdf' }));
      field.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, PDF);
    await expect.poll(() => visitor.locator('.msg.user a[data-file]').allInnerTexts()).toEqual([`Baixar pedido.pdf (${PDF.length} B)`]);
    expect(await accessibilityViolations(visitor)).toEqual([]);
    await screenshotStates(visitor, 'visitor-files', { group: 'conversation-attachments' });
    await takeAndClose(1);
  });
});
