/**
 * WhatsApp Cloud API for tests, as Meta documents it: a local server playing the Graph API's
 * messages endpoint (it records what the channel sends and answers as Meta does), and webhook
 * deliveries as Meta sends them (signed with the app secret over the raw body).
 *
 * Sending: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
 * Deliveries: https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples
 * Signature: https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads
 * Errors: https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  if (body.type === 'text' || body.type === 'interactive') return false;
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
  close(): Promise<void>;
}

/**
 * Starts the Graph API under `/graph`. `other` answers the server's other paths (a test's hand-off
 * receiver on the same port, say).
 */
export async function startGraphApi(other?: (path: string, body: string) => { status: number; body: string }): Promise<GraphApi> {
  const sent: GraphRequest[] = [];
  let nextId = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = request.url ?? '';
      if (!url.startsWith('/graph/') && other) {
        const answer = other(url, body);
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
        return;
      }
      const parsed = JSON.parse(body) as GraphRequest['body'];
      const record: GraphRequest = { url, id: null, status: 400, authorization: request.headers.authorization, body: parsed };
      sent.push(record);
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
  return { origin, graphUrl: `${origin}/graph`, sent, close: () => new Promise((resolve) => server.close(() => resolve())) };
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
