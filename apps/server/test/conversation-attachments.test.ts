/**
 * Attachments in conversations (issue 30, docs/conversations.md "Attachments"): the agent holding a
 * chat uploads a file; the chat's channel decides what it takes (types and sizes per provider,
 * refused before anything is stored); the file is served by its signed URL only; the web chat's
 * widget gets it as an attachment, WhatsApp as a media message through the Graph API (a local
 * server playing it, refusing what Meta refuses); the report names it with its link.
 */
import type { CallReportRecord, ConversationDetail, ConversationMessage, Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { multipartBody } from './audio-fixtures.ts';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, createTenantUser, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';
import { type GraphApi, metaMedia, nowSeconds, signWhatsapp, startGraphApi, whatsappContacts, whatsappDelivery } from './whatsapp-graph.ts';

const SITE = 'https://shop.example.com';
const APP_SECRET = 'meta-app-secret-30';
const TOKEN = 'EAAG-whatsapp-access-token-30';
const PHONE_ID = '106540352243030';
const USER = '5511977776666';

/** The smallest PNG: a 1×1 pixel. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6e0a30000000049454e44ae426082', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let server: TestServer;
let member: TenantMember;
let colleague: TenantMember;
let guest: TenantMember;
let stranger: TenantMember;
let webchatNumber: PhoneNumber;
let whatsappNumber: PhoneNumber;
let graph: GraphApi;
let nextAddress = 0;

const api = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

function upload(token: string, id: number, file: { bytes: Buffer; filename: string; type: string }, text?: string) {
  return server.call({ method: 'POST', url: `/conversations/${id}/attachments`, token, ...multipartBody(text === undefined ? {} : { text }, file) });
}

/** A signed URL fetched as a channel does: no token, path and query as given. */
const fetchSigned = (url: string) => server.app.inject({ method: 'GET', url: url.slice(server.config.publicUrl.length) });

function widget(method: 'GET' | 'POST', url: string) {
  return server.app.inject({ method, url: `/api/v1/webchat/${webchatNumber.webchat_key}${url}`, remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`, headers: { origin: SITE } });
}

const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());

/** A web chat handed to the queue and taken by the member. */
async function takenWebchat(): Promise<{ sessionId: string; id: number }> {
  const started = await widget('POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  const sessionId = started.json<WebchatConversation>().conversation_id;
  const { id } = await conversationOf(sessionId);
  expect((await api(member.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
  return { sessionId, id };
}

function deliverWhatsApp(id: string, content: Record<string, unknown>) {
  const body = JSON.stringify(whatsappDelivery({ contacts: whatsappContacts(USER), messages: [{ from: USER, id, timestamp: nowSeconds(), ...content }] }, PHONE_ID));
  return server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${whatsappNumber.id}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) }, payload: body });
}

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000', WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'attach');
  colleague = await createTenantUser(server, admin, member.tenantId, 'attach-colleague', 'user');
  guest = await createTenantUser(server, admin, member.tenantId, 'attach-guest', 'guest');
  stranger = await createTenantMember(server, admin, 'attach-other');
  const created = await api(member.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId, colleague.userId] });
  expect(created.statusCode, created.body).toBe(201);
  const queue = created.json<Destination>();
  const plan = await storePlan(server.ctx, member.tenantId, { name: 'Front desk', ...handOffPlan(queue.id, { timeoutS: 600, onAnswer: 'Welcome back.' }) });
  const webchat = await api(member.token, 'POST', '/numbers', { number: '+551140003030', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(webchat.statusCode, webchat.body).toBe(201);
  webchatNumber = webchat.json<PhoneNumber>();
  const whatsapp = await api(member.token, 'POST', '/numbers', {
    number: '+551140003031',
    provider: 'whatsapp',
    chat_plan_id: plan,
    whatsapp_phone_number_id: PHONE_ID,
    whatsapp_token: TOKEN,
    whatsapp_app_secret: APP_SECRET,
  });
  expect(whatsapp.statusCode, whatsapp.body).toBe(201);
  whatsappNumber = whatsapp.json<PhoneNumber>();
  expect((await api(member.token, 'PUT', '/agents/me', { status: 'online' })).statusCode).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

describe('the web chat', () => {
  test('the agent sends an image: the message carries it, the widget gets it, its signed URL serves the bytes (and nothing else)', async () => {
    const { sessionId, id } = await takenWebchat();
    const sent = await upload(member.token, id, { bytes: PNG, filename: 'receipt.png', type: 'image/png' }, 'Here is your receipt.');
    expect(sent.statusCode, sent.body).toBe(201);
    const message = sent.json<ConversationMessage>();
    expect(message).toMatchObject({ author: 'agent', text: 'Here is your receipt.', attachment: { name: 'receipt.png', content_type: 'image/png', size: PNG.length } });
    expect(message.attachment!.url.startsWith(`${server.config.publicUrl}/api/v1/media/attachments/`)).toBe(true);

    const view = (await widget('GET', `/conversations/${sessionId}`)).json<WebchatConversation>();
    const shown = view.messages.find((entry) => entry.from === 'agent');
    expect(shown).toMatchObject({ text: 'Here is your receipt.', attachment: { name: 'receipt.png', content_type: 'image/png', size: PNG.length } });

    const served = await fetchSigned(shown!.attachment!.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    // The widget shows it on the visitor's page, another site.
    expect(served.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    // Without its signature, or with another file's id, nothing is served.
    const url = new URL(shown!.attachment!.url);
    expect(errorOf(await server.app.inject({ method: 'GET', url: url.pathname }))).toMatchObject({ statusCode: 403, code: 'invalid_media_signature' });
    const otherId = Number(url.pathname.split('/').pop()) + 1;
    expect(errorOf(await server.app.inject({ method: 'GET', url: `/api/v1/media/attachments/${otherId}${url.search}` }))).toMatchObject({ statusCode: 403, code: 'invalid_media_signature' });

    const detail = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    expect(detail.messages.at(-1)!.attachment).toMatchObject({ name: 'receipt.png', size: PNG.length });

    // The report names it with its link once the chat is over.
    expect((await api(member.token, 'POST', `/conversations/${id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    const report = await until('the report', async () => {
      const rows = (await api(member.token, 'GET', `/reports?session_id=${encodeURIComponent(sessionId)}`)).json<CallReportRecord[]>();
      return rows.find((row) => row.session_id === sessionId && row.handoffs);
    });
    const reported = report.handoffs![0]!.messages.find((entry) => entry.attachment);
    expect(reported!.attachment).toMatchObject({ name: 'receipt.png', content_type: 'image/png' });
    expect((await fetchSigned(reported!.attachment!.url)).rawPayload.equals(PNG)).toBe(true);

    // The same report read the next morning, from the read cache (it keeps an answer from the second read): its link still opens the file.
    const reportedLink = async (token = member.token) => {
      const rows = (await api(token, 'GET', `/reports?session_id=${encodeURIComponent(sessionId)}`)).json<CallReportRecord[]>();
      return rows.find((row) => row.session_id === sessionId)!.handoffs![0]!.messages.find((entry) => entry.attachment)!.attachment!.url;
    };
    await reportedLink();
    await reportedLink();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 7 * 3600_000 });
    try {
      // Signed in again: the morning's sign-in.
      const later = await fetchSigned(await reportedLink(await server.login(member.username, member.password)));
      expect(later.statusCode, later.body).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a file the web chat does not take, or one claiming a type its bytes are not, is refused and nothing is stored', async () => {
    const { id } = await takenWebchat();
    const before = await server.ctx.db.selectFrom('conversation_attachments').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    const program = await upload(member.token, id, { bytes: Buffer.from('MZ....'), filename: 'setup.exe', type: 'application/x-msdownload' });
    expect(errorOf(program)).toMatchObject({ statusCode: 415, code: 'attachment_type_not_supported', params: { type: 'application/x-msdownload' } });
    const html = await upload(member.token, id, { bytes: Buffer.from('<script>alert(1)</script>'), filename: 'page.html', type: 'text/html' });
    expect(errorOf(html).code).toBe('attachment_type_not_supported');
    const fakeImage = await upload(member.token, id, { bytes: Buffer.from('<svg onload="alert(1)"/>'), filename: 'cat.png', type: 'image/png' });
    expect(errorOf(fakeImage)).toMatchObject({ statusCode: 415, code: 'attachment_type_not_supported' });
    const big = await upload(member.token, id, { bytes: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20), filename: 'notes.txt', type: 'text/plain' });
    expect(errorOf(big)).toMatchObject({ statusCode: 413, code: 'attachment_too_large', params: { maxSize: 10 } });
    const after = await server.ctx.db.selectFrom('conversation_attachments').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    expect(Number(after.count)).toBe(Number(before.count));
    // Only the queue's place line, told while it waited (queue-place.ts).
    // No message of the agent's: at most the place the customer was told while waiting (queue-place.ts, sent after the start answers).
    expect((await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>().messages.map((message) => message.author).filter((author) => author !== 'bot')).toEqual([]);
  });

  test('only the agent holding the chat uploads: another tenant’s user, a colleague and a guest are refused', async () => {
    const { id } = await takenWebchat();
    const file = { bytes: PDF, filename: 'terms.pdf', type: 'application/pdf' };
    expect(errorOf(await upload(stranger.token, id, file))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
    expect(errorOf(await upload(colleague.token, id, file))).toMatchObject({ statusCode: 409, code: 'conversation_not_yours' });
    expect(errorOf(await upload(guest.token, id, file)).statusCode).toBe(403);
    const sent = await upload(member.token, id, file);
    expect(sent.statusCode, sent.body).toBe(201);
    // A document downloads rather than opening in the API's origin.
    const served = await fetchSigned(sent.json<ConversationMessage>().attachment!.url);
    expect(served.headers['content-disposition']).toBe('attachment; filename="terms.pdf"');
    // Another tenant's user reads neither the conversation nor its file's message.
    expect(errorOf(await api(stranger.token, 'GET', `/conversations/${id}`)).code).toBe('conversation_not_found');
  });
});

describe('WhatsApp', () => {
  test('the agent’s file goes as a media message of its kind with the signed link; WhatsApp’s own limits refuse the rest', async () => {
    expect((await deliverWhatsApp('wamid.attach.1', { type: 'text', text: { body: 'Hi' } })).statusCode).toBe(200);
    const { id } = await conversationOf('whatsapp:wamid.attach.1');
    // The queue's place line goes out first, so that it is not counted below.
    await until('the place line', () => (graph.sent.some((seen) => seen.body.text?.body.includes('in the queue')) ? true : undefined));
    expect((await api(member.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
    graph.sent.length = 0;

    const pdf = await upload(member.token, id, { bytes: PDF, filename: 'invoice.pdf', type: 'application/pdf' }, 'Your invoice:');
    expect(pdf.statusCode, pdf.body).toBe(201);
    const png = await upload(member.token, id, { bytes: PNG, filename: 'map.png', type: 'image/png' });
    expect(png.statusCode, png.body).toBe(201);
    await until('the Graph API to receive three messages', () => (graph.sent.length >= 3 ? true : undefined));
    expect(graph.sent.map((seen) => seen.status)).toEqual([200, 200, 200]);
    const [text, document, image] = graph.sent.map((seen) => seen.body);
    expect(text).toMatchObject({ messaging_product: 'whatsapp', to: `+${USER}`.replace('+', ''), type: 'text', text: { body: 'Your invoice:' } });
    expect(document).toMatchObject({ type: 'document', document: { filename: 'invoice.pdf' } });
    expect(image).toMatchObject({ type: 'image' });
    // Meta fetches each link: it serves the file, in a type Meta takes for that kind.
    for (const [kind, body, bytes] of [['document', document, PDF], ['image', image, PNG]] as const) {
      const served = await fetchSigned((body![kind] as { link: string }).link);
      expect(served.statusCode).toBe(200);
      expect(metaMedia[kind]).toContain(served.headers['content-type']);
      expect(served.rawPayload.equals(bytes)).toBe(true);
    }

    // WebP is a sticker to Meta, not an image; an image over 5 MB is refused by Meta too.
    const webp = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), Buffer.alloc(16)]);
    expect(errorOf(await upload(member.token, id, { bytes: webp, filename: 'smile.webp', type: 'image/webp' }))).toMatchObject({ statusCode: 415, code: 'attachment_type_not_supported' });
    const bigImage = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    expect(errorOf(await upload(member.token, id, { bytes: bigImage, filename: 'huge.png', type: 'image/png' }))).toMatchObject({ statusCode: 413, code: 'attachment_too_large', params: { maxSize: 5 } });
    expect(graph.sent).toHaveLength(3);
  });

  test('a customer’s file is fetched from Meta by its media id (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url), kept with the conversation and shown', async () => {
    const { id } = await conversationOf('whatsapp:wamid.attach.1');
    graph.addMedia('MEDIA.30.1', { bytes: PDF, mimeType: 'application/pdf', token: TOKEN, phoneNumberId: PHONE_ID });
    graph.addMedia('MEDIA.30.2', { bytes: PNG, mimeType: 'image/png', token: TOKEN, phoneNumberId: PHONE_ID });
    // A document and an image as Meta delivers them (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples#media-messages).
    const document = { type: 'document', document: { id: 'MEDIA.30.1', mime_type: 'application/pdf', filename: 'order-4711.pdf', caption: 'My order', sha256: 'abc' } };
    expect((await deliverWhatsApp('wamid.attach.2', document)).statusCode).toBe(200);
    expect((await deliverWhatsApp('wamid.attach.3', { type: 'image', image: { id: 'MEDIA.30.2', mime_type: 'image/png', sha256: 'def' } })).statusCode).toBe(200);
    // Meta delivers again what it is not sure arrived: stored once, fetched once.
    expect((await deliverWhatsApp('wamid.attach.2', document)).statusCode).toBe(200);
    const detail = await until('the customer’s two files', async () => {
      const found = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
      return found.messages.filter((message) => message.author === 'customer' && message.attachment).length >= 2 ? found : undefined;
    });
    const files = detail.messages.filter((message) => message.author === 'customer' && message.attachment);
    expect(files.map(({ text, attachment }) => ({ text, ...attachment, url: undefined }))).toEqual([
      { text: 'My order', content_type: 'application/pdf', name: 'order-4711.pdf', size: PDF.length, url: undefined },
      { text: '', content_type: 'image/png', name: 'image.png', size: PNG.length, url: undefined },
    ]);
    // The agent's console opens each by its signed URL: the bytes Meta had.
    for (const [message, bytes] of [[files[0]!, PDF], [files[1]!, PNG]] as const) {
      const served = await fetchSigned(message.attachment!.url);
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(bytes)).toBe(true);
    }
    // Both steps carried the number's token; each media was looked up and downloaded once.
    const ok = graph.mediaRequests.filter((request) => request.status === 200);
    expect(ok.map((request) => request.path.replace(/&ext=\d+/, ''))).toEqual([
      `/graph/v23.0/MEDIA.30.1?phone_number_id=${PHONE_ID}`,
      '/lookaside/media?mid=MEDIA.30.1',
      `/graph/v23.0/MEDIA.30.2?phone_number_id=${PHONE_ID}`,
      '/lookaside/media?mid=MEDIA.30.2',
    ]);
    expect(new Set(ok.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    const kept = await server.ctx.db.selectFrom('conversation_attachments').select(['tenant_id', 'name']).where('conversation_id', '=', id).where('name', 'in', ['order-4711.pdf', 'image.png']).execute();
    expect(kept).toEqual([{ tenant_id: member.tenantId, name: 'order-4711.pdf' }, { tenant_id: member.tenantId, name: 'image.png' }]);
  });

  test('a file Meta does not give (another token’s or number’s media, an unknown id) shows by its type, name and caption, without a link', async () => {
    const { id } = await conversationOf('whatsapp:wamid.attach.1');
    graph.addMedia('MEDIA.30.9', { bytes: PDF, mimeType: 'application/pdf', token: 'another-business-token', phoneNumberId: PHONE_ID });
    // Sent to another number of the same business (same token): a delivery naming it here is refused too.
    graph.addMedia('MEDIA.30.8', { bytes: PDF, mimeType: 'application/pdf', token: TOKEN, phoneNumberId: '999999999999999' });
    const before = graph.mediaRequests.length;
    const refused = { type: 'document', document: { id: 'MEDIA.30.9', mime_type: 'application/pdf', filename: 'not-ours.pdf', caption: 'Theirs' } };
    expect((await deliverWhatsApp('wamid.attach.9', refused)).statusCode).toBe(200);
    const otherNumber = { type: 'document', document: { id: 'MEDIA.30.8', mime_type: 'application/pdf', filename: 'elsewhere.pdf' } };
    expect((await deliverWhatsApp('wamid.attach.8', otherNumber)).statusCode).toBe(200);
    const unknown = { type: 'document', document: { id: 'MEDIA.30.404', mime_type: 'application/pdf', filename: 'gone.pdf' } };
    expect((await deliverWhatsApp('wamid.attach.10', unknown)).statusCode).toBe(200);
    const detail = await until('the two files', async () => {
      const found = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
      return found.messages.some((message) => message.attachment?.name === 'gone.pdf') ? found : undefined;
    });
    expect(detail.messages.filter((message) => ['not-ours.pdf', 'elsewhere.pdf', 'gone.pdf'].includes(message.attachment?.name ?? '')).map((message) => message.attachment)).toEqual([
      { url: '', content_type: 'application/pdf', name: 'not-ours.pdf', size: null },
      { url: '', content_type: 'application/pdf', name: 'elsewhere.pdf', size: null },
      { url: '', content_type: 'application/pdf', name: 'gone.pdf', size: null },
    ]);
    // Meta refused each lookup as it does: a token not the media's (190), another number's media and an id it does not have (100).
    expect(graph.mediaRequests.slice(before).map((request) => request.status)).toEqual([401, 400, 400]);
  });
});
