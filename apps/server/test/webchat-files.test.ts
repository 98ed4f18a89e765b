/**
 * A web chat visitor sends files (issue 36, 13; docs/channels-webchat.md "Files"): the widget's upload
 * behind the same gate as its messages (key, origin, rate limit, the database away), the web chat's
 * types and sizes with the content checked against the type, stored per tenant with the
 * conversation's files, shown to the agent and named in the report; refused while the plan has the
 * chat (plans read no files), and nothing stored on any refusal.
 */
import type { CallReportRecord, ConversationDetail, Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { multipartBody } from './audio-fixtures.ts';
import { until } from './asterisk-pbx.ts';
import { takeDatabaseAway } from './database-away.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan, sayingPlan, storePlan } from './sessions-helpers.ts';

const SITE = 'https://shop.example.com';
const RATE_PER_ADDRESS = 15;

/** The smallest PNG: a 1×1 pixel. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6e0a30000000049454e44ae426082', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let server: TestServer;
let member: TenantMember;
let stranger: TenantMember;
/** Hands every chat to a queue; the bot keeps its chats (a menu); another tenant's web chat. */
let queued: PhoneNumber;
let bot: PhoneNumber;
let elsewhere: PhoneNumber;
let nextAddress = 0;

interface FileUpload {
  bytes: Buffer;
  filename: string;
  type: string;
}

/** The widget's upload, from a page of `origin`, at an address of its own unless one is given. */
function upload(number: PhoneNumber, sessionId: string, file: FileUpload, fields: Record<string, string>, options: { origin?: string; address?: string } = {}) {
  const body = multipartBody(fields, file);
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/webchat/${number.webchat_key}/conversations/${sessionId}/files`,
    remoteAddress: options.address ?? `198.51.100.${(nextAddress++ % 250) + 1}`,
    payload: body.payload,
    headers: { ...body.headers, origin: options.origin ?? SITE },
  });
}

const api = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

async function start(number: PhoneNumber): Promise<WebchatConversation> {
  const started = await server.app.inject({ method: 'POST', url: `/api/v1/webchat/${number.webchat_key}/conversations`, remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`, headers: { origin: SITE } });
  expect(started.statusCode, started.body).toBe(200);
  return started.json<WebchatConversation>();
}

const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());

const storedFiles = async () => Number((await server.ctx.db.selectFrom('conversation_attachments').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);

/** A signed URL fetched as the widget and the console do: no token. */
const fetchSigned = (url: string) => server.app.inject({ method: 'GET', url: url.slice(server.config.publicUrl.length) });

async function webchat(token: string, number: string, plan: number): Promise<PhoneNumber> {
  const created = await api(token, 'POST', '/numbers', { number, provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<PhoneNumber>();
}

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000', WEBCHAT_RATE_PER_ADDRESS: String(RATE_PER_ADDRESS) });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'visitor-files');
  stranger = await createTenantMember(server, admin, 'visitor-files-other');
  const created = await api(member.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] });
  expect(created.statusCode, created.body).toBe(201);
  const queue = created.json<Destination>();
  queued = await webchat(member.token, '+551140003636', await storePlan(server.ctx, member.tenantId, { name: 'Front desk', ...handOffPlan(queue.id, { timeoutS: 600, onAnswer: 'Welcome back.' }) }));
  bot = await webchat(member.token, '+551140003637', await storePlan(server.ctx, member.tenantId, { name: 'Menu', settings: handOffPlan(queue.id, { timeoutS: 600, onAnswer: '' }).settings, ...sayingPlan('Hello.') }));
  elsewhere = await webchat(stranger.token, '+551140003638', await storePlan(server.ctx, stranger.tenantId, { name: 'Theirs', settings: handOffPlan(queue.id, { timeoutS: 600, onAnswer: '' }).settings, ...sayingPlan('Hi.') }));
  expect((await api(member.token, 'PUT', '/agents/me', { status: 'online' })).statusCode).toBe(200);
});

afterAll(async () => {
  await server?.close();
});

describe('a visitor sends a file', () => {
  test('an image while waiting in the queue and a PDF with a caption once taken: the widget, the agent and the report see them; a retry stores once', async () => {
    const { conversation_id: sessionId } = await start(queued);
    const { id } = await conversationOf(sessionId);
    const before = await storedFiles();

    const sent = await upload(queued, sessionId, { bytes: PNG, filename: 'C:\\Users\\me\\receipt.png', type: 'image/png' }, { id: 'file-1' });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.headers['access-control-allow-origin']).toBe(SITE);
    const view = sent.json<WebchatConversation>();
    expect(view.files).toBe(true);
    const mine = view.messages.filter((message) => message.from === 'user' && message.attachment);
    expect(mine).toMatchObject([{ text: '', attachment: { name: 'receipt.png', content_type: 'image/png', size: PNG.length } }]);
    const served = await fetchSigned(mine[0]!.attachment!.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(PNG)).toBe(true);

    // The widget sends it again when the answer was lost: it is stored once.
    const again = await upload(queued, sessionId, { bytes: PNG, filename: 'receipt.png', type: 'image/png' }, { id: 'file-1' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json<WebchatConversation>().messages.filter((message) => message.attachment)).toHaveLength(1);
    expect(await storedFiles()).toBe(before + 1);

    // The agent takes the chat: the image waited for them; a PDF comes with its caption.
    expect((await api(member.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
    const pdf = await upload(queued, sessionId, { bytes: PDF, filename: 'invoice.pdf', type: 'application/pdf' }, { id: 'file-2', text: 'The invoice' });
    expect(pdf.statusCode, pdf.body).toBe(200);
    const detail = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    expect(detail.messages.filter((message) => message.author === 'customer').map((message) => [message.text, message.attachment?.name, message.attachment?.size])).toEqual([
      ['', 'receipt.png', PNG.length],
      ['The invoice', 'invoice.pdf', PDF.length],
    ]);
    const document = await fetchSigned(detail.messages.at(-1)!.attachment!.url);
    expect(document.headers['content-disposition']).toMatch(/^attachment/);
    expect(document.rawPayload.equals(PDF)).toBe(true);

    // The report names both files once the chat is over; the widget offers no more uploads.
    expect((await api(member.token, 'POST', `/conversations/${id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    const report = await until('the report', async () => {
      const rows = (await api(member.token, 'GET', `/reports?session_id=${encodeURIComponent(sessionId)}`)).json<CallReportRecord[]>();
      return rows.find((row) => row.session_id === sessionId && row.handoffs);
    });
    expect(report.handoffs![0]!.messages.filter((message) => message.attachment).map((message) => [message.author, message.attachment!.name])).toEqual([
      ['customer', 'receipt.png'],
      ['customer', 'invoice.pdf'],
    ]);
    const closed = await upload(queued, sessionId, { bytes: PNG, filename: 'late.png', type: 'image/png' }, { id: 'file-3' });
    expect(errorOf(closed)).toMatchObject({ statusCode: 409, code: 'webchat_files_need_a_person' });
  });

  test('up to 10 MB; too big, or not what its type says: refused with the catalogue’s codes, nothing stored', async () => {
    const { conversation_id: sessionId } = await start(queued);
    await conversationOf(sessionId);
    // 10 MB is taken; a byte more is not.
    const largest = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024 - PDF.length, 0x20)]);
    const taken = await upload(queued, sessionId, { bytes: largest, filename: 'scan.pdf', type: 'application/pdf' }, { id: 'largest' });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json<WebchatConversation>().messages.at(-1)!.attachment).toMatchObject({ name: 'scan.pdf', size: 10 * 1024 * 1024 });
    const before = await storedFiles();
    const tooBig = await upload(queued, sessionId, { bytes: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]), filename: 'huge.png', type: 'image/png' }, { id: 'big' });
    expect(errorOf(tooBig)).toMatchObject({ statusCode: 413, code: 'attachment_too_large', params: { maxSize: 10 } });
    expect(tooBig.headers['access-control-allow-origin']).toBe(SITE);

    const page = Buffer.from('<html><script>alert(1)</script></html>');
    const program = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64)]);
    for (const [file, type] of [
      [{ bytes: page, filename: 'photo.png', type: 'image/png' }, 'image/png'],
      [{ bytes: program, filename: 'invoice.pdf', type: 'application/pdf' }, 'application/pdf'],
      [{ bytes: program, filename: 'notes.txt', type: 'text/plain' }, 'text/plain'],
      [{ bytes: PDF, filename: 'invoice.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [{ bytes: program, filename: 'setup.exe', type: 'application/x-msdownload' }, 'application/x-msdownload'],
      [{ bytes: page, filename: 'page.html', type: 'text/html' }, 'text/html'],
    ] as const) {
      const refused = await upload(queued, sessionId, file, { id: file.filename });
      expect(errorOf(refused), file.filename).toMatchObject({ statusCode: 415, code: 'attachment_type_not_supported', params: { type } });
    }
    expect(errorOf(await upload(queued, sessionId, { bytes: PNG, filename: 'x.png', type: 'image/png' }, {}))).toMatchObject({ statusCode: 400, code: 'invalid_input' });
    expect(await storedFiles()).toBe(before);
    const view = (await server.app.inject({ method: 'GET', url: `/api/v1/webchat/${queued.webchat_key}/conversations/${sessionId}`, headers: { origin: SITE } })).json<WebchatConversation>();
    expect(view.messages.filter((message) => message.from === 'user').map((message) => message.attachment?.name)).toEqual(['scan.pdf']);
  });

  test('not this visitor’s conversation, not an allowed page, or the plan has the chat: refused before the body is read', async () => {
    const { conversation_id: sessionId } = await start(queued);
    await conversationOf(sessionId);
    const before = await storedFiles();
    const file = { bytes: PNG, filename: 'receipt.png', type: 'image/png' };
    // Another tenant's key with this conversation's id: not found there.
    expect(errorOf(await upload(elsewhere, sessionId, file, { id: 'a' }))).toMatchObject({ statusCode: 404, code: 'session_not_found' });
    expect(errorOf(await upload(queued, 'no-such-conversation', file, { id: 'b' }))).toMatchObject({ statusCode: 404, code: 'session_not_found' });
    expect(errorOf(await upload(queued, sessionId, file, { id: 'c' }, { origin: 'https://evil.example.net' }))).toMatchObject({ statusCode: 403, code: 'webchat_origin_refused' });

    // The bot waits on its menu: plans read no files, and the widget is told it may not send one.
    const withBot = await start(bot);
    expect(withBot.files).toBe(false);
    expect(errorOf(await upload(bot, withBot.conversation_id, file, { id: 'd' }))).toMatchObject({ statusCode: 409, code: 'webchat_files_need_a_person' });
    expect(await storedFiles()).toBe(before);
  });

  test('rate-limited as the messages are, and 503 with Retry-After while the database is away: the page reads both', async () => {
    const { conversation_id: sessionId } = await start(queued);
    await conversationOf(sessionId);
    const address = '203.0.113.77';
    const file = { bytes: PNG, filename: 'receipt.png', type: 'image/png' };
    for (let index = 0; index < RATE_PER_ADDRESS; index++) {
      expect((await upload(queued, sessionId, file, { id: `rate-${index}` }, { address })).statusCode).toBe(200);
    }
    const limited = await upload(queued, sessionId, file, { id: 'rate-over' }, { address });
    expect(errorOf(limited)).toMatchObject({ statusCode: 429, code: 'webchat_rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['access-control-allow-origin']).toBe(SITE);

    const bringBack = takeDatabaseAway(server.ctx.dialect);
    let away;
    try {
      away = await upload(queued, sessionId, file, { id: 'away' });
    } finally {
      bringBack();
    }
    expect(errorOf(away)).toMatchObject({ statusCode: 503, code: 'database_unavailable' });
    expect(away.headers['retry-after']).toBe('2');
    expect(away.headers['access-control-expose-headers']).toBe('Retry-After');
    // Sent again once it is back, it is stored.
    const view = (await upload(queued, sessionId, file, { id: 'away' })).json<WebchatConversation>();
    expect(view.messages.filter((message) => message.attachment)).toHaveLength(RATE_PER_ADDRESS + 1);
  });
});
