/**
 * WhatsApp Cloud API for tests, as Meta documents it: a local server playing the Graph API's
 * messages endpoint (it records what the channel sends and answers as Meta does), and webhook
 * deliveries as Meta sends them (signed with the app secret over the raw body).
 *
 * Sending: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
 * Deliveries: https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples
 * Signature: https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads
 * Errors: https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
 * A customer's media: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url
 * and #download-media: GET /{version}/{media id} with the bearer token answers
 * `{messaging_product, url, mime_type, sha256, file_size, id}`, the URL valid for 5 minutes; that URL
 * gives the bytes only with the token too (a plain GET does not).
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkTemplate, listTemplates, metaError, type TemplateAccount } from './whatsapp-graph-templates.ts';

export { metaError, templateStatusDelivery, type TemplateAccount } from './whatsapp-graph-templates.ts';

/** Meta's limit on an interactive message's body, buttons and lists alike. */
export const INTERACTIVE_BODY_LIMIT = 1024;

export interface GraphRequest {
  url: string;
  /** The message id answered (`wamid.out.<n>`), null when Meta's answer was an error. */
  id: string | null;
  /** The HTTP status answered. */
  status: number;
  authorization: string | undefined;
  body: { messaging_product: string; to: string; type: string; text?: { body: string }; interactive?: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * The media message types Meta takes and, per type, the MIME types its servers accept at the link
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types)
 * and the media object's shape (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#media-object):
 * `link` (http or https) for each; `filename` for documents only; no caption on audio.
 */
export const metaMedia: Record<string, readonly string[]> = {
  image: ['image/jpeg', 'image/png'],
  audio: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
  video: ['video/mp4', 'video/3gpp'],
  document: ['text/plain', 'application/pdf', 'application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'],
};

/**
 * What Meta refuses as an invalid parameter (code 100, https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes):
 * a media type it does not have, a media object without an http(s) link, a filename off a document, a caption on audio.
 */
function invalidMedia(body: GraphRequest['body']): boolean {
  if (body.type === 'text' || body.type === 'interactive' || body.type === 'template') return false;
  const media = body[body.type] as Record<string, unknown> | undefined;
  return (
    !(body.type in metaMedia) ||
    !media ||
    typeof media.link !== 'string' ||
    !/^https?:\/\//.test(media.link) ||
    (body.type === 'document') !== 'filename' in media ||
    (body.type === 'audio' && 'caption' in media)
  );
}

export interface GraphApi {
  /** `http://127.0.0.1:<port>`: the server's root, for other routes a test serves beside the Graph API. */
  origin: string;
  /** What WHATSAPP_GRAPH_URL is set to. */
  graphUrl: string;
  /** The messages sent, oldest first. */
  sent: GraphRequest[];
  /** A customer's file as Meta keeps it: its id, given to whoever holds `token`, sent to the number `phoneNumberId`. */
  addMedia(id: string, media: { bytes: Buffer; mimeType: string; token: string; phoneNumberId: string }): void;
  /** The media requests (lookups and downloads), oldest first, with what was answered. */
  mediaRequests: { path: string; authorization: string | undefined; status: number }[];
  /** A WhatsApp Business Account's templates (Meta's `message_templates` entries), readable with `token`, sent by `phoneNumberIds`. */
  setTemplates(wabaId: string, account: TemplateAccount): void;
  /** The template list requests (path and query), oldest first. */
  templateRequests: string[];
  /** Meta's record that the customer `waId` last wrote more than 24 hours ago: a free-form message to them is refused (131047). */
  closeWindow(waId: string): void;
  /** The next message sent is refused with Meta's error `code` (HTTP `status`, 400 by default), as for a throughput limit or an undeliverable number. */
  failNext(code: number, options?: { status?: number; message?: string; details?: string }): void;
  close(): Promise<void>;
}

/** How long Meta's media URL works (Retrieve Media URL: "only valid for 5 minutes"). */
const MEDIA_URL_TTL_MS = 5 * 60 * 1000;

/** Meta's answer to a request without a valid token (code 190, https://developers.facebook.com/docs/graph-api/guides/error-handling). */
const invalidToken = { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } };
/** Meta's answer to an id it does not have (or not for this token): code 100, subcode 33. */
const unknownObject = (id: string) => ({
  error: { message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, type: 'GraphMethodException', code: 100, error_subcode: 33 },
});

/**
 * Starts the Graph API under `/graph`. `other` answers the server's other paths (a test's hand-off
 * receiver on the same port, say).
 */
export async function startGraphApi(other?: (path: string, body: string) => { status: number; body: string }): Promise<GraphApi> {
  const sent: GraphRequest[] = [];
  const media = new Map<string, { bytes: Buffer; mimeType: string; token: string; phoneNumberId: string }>();
  const mediaRequests: GraphApi['mediaRequests'] = [];
  const templateAccounts = new Map<string, TemplateAccount>();
  const templateRequests: string[] = [];
  const closedWindows = new Set<string>();
  const failures: { code: number; status: number; message: string; details: string }[] = [];
  let nextId = 0;
  /** A media lookup or download: the token must be the one the media was given to, the URL not expired. */
  const serveMedia = (request: http.IncomingMessage, response: http.ServerResponse, url: URL): void => {
    const json = (status: number, body: unknown) => {
      mediaRequests.push({ path: url.pathname + url.search, authorization: request.headers.authorization, status });
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const download = url.pathname === '/lookaside/media';
    const id = download ? (url.searchParams.get('mid') ?? '') : decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const found = media.get(id);
    const bearer = request.headers.authorization?.startsWith('Bearer ') ? request.headers.authorization.slice('Bearer '.length) : undefined;
    if (bearer === undefined || (found && bearer !== found.token)) return json(401, invalidToken);
    if (!found) return json(download ? 404 : 400, unknownObject(id));
    // Retrieve Media URL's optional phone_number_id: the media must belong to that number.
    const phoneNumberId = url.searchParams.get('phone_number_id');
    if (!download && phoneNumberId !== null && phoneNumberId !== found.phoneNumberId) return json(400, unknownObject(id));
    if (!download) {
      const link = `${origin}/lookaside/media?mid=${encodeURIComponent(id)}&ext=${Date.now() + MEDIA_URL_TTL_MS}`;
      const sha256 = createHash('sha256').update(found.bytes).digest('base64');
      return json(200, { messaging_product: 'whatsapp', url: link, mime_type: found.mimeType, sha256, file_size: found.bytes.length, id });
    }
    if (Number(url.searchParams.get('ext')) < Date.now()) return json(404, unknownObject(id));
    mediaRequests.push({ path: url.pathname + url.search, authorization: request.headers.authorization, status: 200 });
    response.writeHead(200, { 'content-type': found.mimeType, 'content-length': String(found.bytes.length) }).end(found.bytes);
  };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = request.url ?? '';
      const templates = request.method === 'GET' ? listTemplates(templateAccounts, new URL(url, origin), request.headers.authorization) : null;
      if (templates) {
        templateRequests.push(url);
        response.writeHead(templates.status, { 'content-type': 'application/json' }).end(JSON.stringify(templates.body));
        return;
      }
      if (request.method === 'GET' && (url.startsWith('/graph/') || url.startsWith('/lookaside/'))) {
        serveMedia(request, response, new URL(url, origin));
        return;
      }
      if (!url.startsWith('/graph/') && other) {
        const answer = other(url, body);
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
        return;
      }
      const parsed = JSON.parse(body) as GraphRequest['body'];
      const record: GraphRequest = { url, id: null, status: 400, authorization: request.headers.authorization, body: parsed };
      sent.push(record);
      const refuse = (status: number, error: unknown) => {
        record.status = status;
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(error));
      };
      const failure = failures.shift();
      if (failure) return refuse(failure.status, metaError(failure.code, failure.message, failure.details));
      if (parsed.type === 'template') {
        const refusal = checkTemplate(templateAccounts, decodeURIComponent(url.split('/')[3] ?? ''), parsed);
        if (refusal) return refuse(refusal.status, refusal.body);
      } else if (closedWindows.has(parsed.to)) {
        return refuse(400, metaError(131047, 'Re-engagement message', 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.'));
      }
      if (invalidMedia(parsed)) {
        const error = { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 };
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
        return;
      }
      // Meta refuses an interactive body over 1,024 characters as an invalid parameter (code 131009).
      const interactiveBody = (parsed.interactive?.body as { text?: string } | undefined)?.text ?? '';
      if (Array.from(interactiveBody).length > INTERACTIVE_BODY_LIMIT) {
        const error = { message: '(#131009) Parameter value is not valid', type: 'OAuthException', code: 131009, error_data: { messaging_product: 'whatsapp', details: 'Body text is too long' } };
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
        return;
      }
      // The documented answer: the contact and the new message's id.
      record.id = `wamid.out.${++nextId}`;
      record.status = 200;
      const answer = { messaging_product: 'whatsapp', contacts: [{ input: parsed.to, wa_id: parsed.to }], messages: [{ id: record.id }] };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    graphUrl: `${origin}/graph`,
    sent,
    mediaRequests,
    addMedia: (id, file) => void media.set(id, file),
    setTemplates: (wabaId, account) => void templateAccounts.set(wabaId, account),
    templateRequests,
    closeWindow: (waId) => void closedWindows.add(waId),
    failNext: (code, options = {}) => void failures.push({ code, status: options.status ?? 400, message: options.message ?? 'Meta error', details: options.details ?? '' }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Value = Record<string, unknown>;

/** A delivery of Meta's webhook for a phone number id, with the change's value. */
export const whatsappDelivery = (value: Value, phoneId: string) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '551140000001', phone_number_id: phoneId }, ...value } }],
    },
  ],
});

export const nowSeconds = () => String(Math.floor(Date.now() / 1000));
export const whatsappContacts = (user: string) => [{ profile: { name: 'Ana' }, wa_id: user }];

/** A text the user `user` wrote, as a change's value. */
export const whatsappText = (user: string, id: string, body: string, timestamp = nowSeconds()) => ({
  contacts: whatsappContacts(user),
  messages: [{ from: user, id, timestamp, type: 'text', text: { body } }],
});

/** Meta's `X-Hub-Signature-256` of a delivery's body. */
export const signWhatsapp = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
