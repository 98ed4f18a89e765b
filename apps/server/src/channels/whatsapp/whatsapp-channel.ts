/**
 * The WhatsApp Cloud API channel's sending side (docs/channels-whatsapp.md): a number's account,
 * the 24-hour customer service window, messages through the Graph API and what became of them.
 *
 * Everything a number sends goes through `sendWhatsApp`: the replies of a conversation's turns,
 * the sweeper's last words (the channel's chat sender) and the `send_message`
 * block (the messaging port), so the window is kept alike for all of them.
 */
import { randomUUID } from 'node:crypto';
import type { Action, MessagingResult, OutgoingMessage } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import type { Keys } from '../../lib/keys.ts';
import { decryptSecret } from '../../lib/keys.ts';
import type { ChatSender } from '../../modules/sessions/chat-channels.ts';
import { metaErrorOf, metaOutcome, THROUGHPUT_LIMIT } from './meta-errors.ts';
import { type GraphMessage, replyMessages, textMessages } from './outbound.ts';
import { instancePacer, type Pacer } from './pace.ts';

/** How long one request to the Graph API may hold a turn. */
const SEND_TIMEOUT_MS = 10_000;

/** Meta takes free-form messages only this long after the user's last message (the customer service window). */
export const CUSTOMER_WINDOW_MS = 24 * 3600 * 1000;

/** What the channel needs of the app. */
export type WhatsAppContext = {
  db: Kysely<Database>;
  keys: Keys;
  config: Pick<Config, 'whatsappGraphUrl' | 'whatsappGraphVersion'> & Partial<Pick<Config, 'whatsappMessagesPerSecond' | 'whatsappRateLimitBackoffMs'>>;
  /** The sends' pace (pace.ts); the instance's unless a test gives its own. */
  pacer?: Pacer;
};

/** A number's WhatsApp configuration, secrets decrypted; null when none is stored. */
export interface WhatsAppAccount {
  number_id: number;
  tenant_id: number;
  /** E.164. */
  number: string;
  provider: Database['numbers']['provider'];
  chat_plan_id: number | null;
  verify_token: string;
  phone_number_id: string;
  token: string | null;
  app_secret: string | null;
  /** The WhatsApp Business Account whose templates the number sends; '' when not given. */
  business_account_id: string;
  /** Meta's messaging limit tier; null: unlimited. */
  daily_limit: number | null;
}

/** The user's WhatsApp id (wa_id): the phone number's digits, as Meta names users. */
export const contactOf = (address: string): string => address.trim().replace(/^\+/, '');

async function accountWhere(ctx: WhatsAppContext, where: { id: number } | { tenant_id: number; number: string }): Promise<WhatsAppAccount | undefined> {
  let query = ctx.db
    .selectFrom('numbers')
    .select(['id', 'tenant_id', 'number', 'provider', 'chat_plan_id', 'whatsapp_verify_token', 'whatsapp_phone_number_id', 'whatsapp_token', 'whatsapp_app_secret', 'whatsapp_business_account_id', 'whatsapp_daily_limit']);
  query = 'id' in where ? query.where('id', '=', where.id) : query.where('tenant_id', '=', where.tenant_id).where('number', '=', where.number);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const secret = (stored: string | null) => (stored === null ? null : decryptSecret(ctx.keys.secretsKey, stored));
  return {
    number_id: row.id,
    tenant_id: row.tenant_id,
    number: row.number,
    provider: row.provider,
    chat_plan_id: row.chat_plan_id,
    verify_token: row.whatsapp_verify_token,
    phone_number_id: row.whatsapp_phone_number_id,
    token: secret(row.whatsapp_token),
    app_secret: secret(row.whatsapp_app_secret),
    business_account_id: row.whatsapp_business_account_id,
    daily_limit: row.whatsapp_daily_limit,
  };
}

/** The number a webhook URL names (`/hooks/whatsapp/{id}`). */
export const accountById = (ctx: WhatsAppContext, numberId: number) => accountWhere(ctx, { id: numberId });

/** The tenant's number a session runs on (its `called`), which sends in its name. */
export const accountByNumber = (ctx: WhatsAppContext, tenantId: number, e164: string) => accountWhere(ctx, { tenant_id: tenantId, number: e164 });

/** Whether the user wrote to the number in the last 24 hours: Meta refuses free-form messages otherwise. */
export async function isInCustomerWindow(db: Kysely<Database>, numberId: number, contact: string, now = new Date()): Promise<boolean> {
  const since = new Date(now.getTime() - CUSTOMER_WINDOW_MS).toISOString();
  const last = await db
    .selectFrom('whatsapp_messages')
    .select('id')
    .where('number_id', '=', numberId)
    .where('contact', '=', contact)
    .where('direction', '=', 'inbound')
    .where('sent_time', '>=', since)
    .limit(1)
    .executeTakeFirst();
  return last !== undefined;
}

/** Meta's answer to a sent message: `{messages: [{id}]}`. */
function sentIdOf(body: unknown): string | undefined {
  const messages = typeof body === 'object' && body !== null ? (body as { messages?: unknown }).messages : undefined;
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  const id = typeof first === 'object' && first !== null ? (first as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A send's result: Meta's id, else the outcome (meta-errors.ts) with Meta's code when it gave one. */
type PostResult = { ok: true; id: string } | { ok: false; reason: string; code?: number; error?: string };

async function postOnce(ctx: WhatsAppContext, account: WhatsAppAccount, token: string, to: string, message: GraphMessage): Promise<PostResult> {
  const { whatsappGraphUrl, whatsappGraphVersion } = ctx.config;
  const url = `${whatsappGraphUrl}/${whatsappGraphVersion}/${encodeURIComponent(account.phone_number_id)}/messages`;
  await (ctx.pacer ?? instancePacer).take(account.number_id, ctx.config.whatsappMessagesPerSecond ?? 80);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to, ...message }),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
  } catch (error) {
    return { ok: false, reason: error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network' };
  }
  const body: unknown = await response.json().catch(() => undefined);
  const id = response.ok ? sentIdOf(body) : undefined;
  if (id) return { ok: true, id };
  // Nothing is reported sent that Meta did not take and name; Meta's code says why, when it gave one.
  const error = response.ok ? undefined : metaErrorOf(body);
  return error ? { ok: false, reason: metaOutcome(error.code), code: error.code, error: error.message } : { ok: false, reason: `provider_status_${response.status}` };
}

/** One message through the Graph API, at the number's pace; Meta's throughput refusal (130429) is retried once after a pause. */
async function post(ctx: WhatsAppContext, account: WhatsAppAccount, token: string, to: string, message: GraphMessage): Promise<PostResult> {
  const result = await postOnce(ctx, account, token, to, message);
  if (result.ok || result.code !== THROUGHPUT_LIMIT) return result;
  const backoff = ctx.config.whatsappRateLimitBackoffMs ?? 1000;
  if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, backoff));
  return postOnce(ctx, account, token, to, message);
}

/**
 * Sends messages to a user in order, each recorded (with the session it belongs to, and the
 * template it was) for the statuses Meta reports later. Outside the customer service window only
 * templates go (Meta takes nothing else there); anything else is not sent
 * (`outside_customer_window`). The first refusal stops the rest. Answers the last message's id.
 */
export async function sendWhatsApp(
  ctx: WhatsAppContext,
  account: WhatsAppAccount,
  to: string,
  messages: readonly GraphMessage[],
  sessionId: string | null,
  /** The window is measured to it: a turn's clock. */
  now = new Date(),
): Promise<MessagingResult> {
  if (!account.token || account.phone_number_id === '') return { ok: false, reason: 'not_configured' };
  const contact = contactOf(to);
  const onlyTemplates = messages.length > 0 && messages.every((message) => message.type === 'template');
  if (!onlyTemplates && !(await isInCustomerWindow(ctx.db, account.number_id, contact, now))) return { ok: false, reason: 'outside_customer_window' };
  let result: MessagingResult = { ok: false, reason: 'empty' };
  for (const message of messages) {
    const posted = await post(ctx, account, account.token, contact, message);
    // Meta's refusal is kept as a failed message too (with no id of Meta's), so that reports and campaigns show its code.
    if (posted.ok || posted.code !== undefined) {
      const sentTime = new Date().toISOString();
      await ctx.db
        .insertInto('whatsapp_messages')
        .values({
          tenant_id: account.tenant_id,
          number_id: account.number_id,
          direction: 'outbound',
          contact,
          session_id: sessionId,
          template_name: message.type === 'template' ? message.template.name : null,
          sent_time: sentTime,
          updated_time: sentTime,
          ...(posted.ok
            ? { id: posted.id, status: 'accepted' }
            : { id: `refused:${randomUUID()}`, status: 'failed', error: `${posted.code} ${posted.error ?? ''}`.trim().slice(0, 500), error_code: posted.code }),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
    if (!posted.ok) return { ok: false, reason: posted.reason, ...(posted.code !== undefined && { code: posted.code }) };
    result = posted;
  }
  return result;
}

/** A voice note's size limit: what the transcription endpoint takes. */
const MAX_MEDIA_BYTES = 25 * 1024 * 1024;

/**
 * A media file the user sent (a voice note, an image, a document), through the Graph API: its id
 * gives a URL valid for 5 minutes, fetched with the number's token as well
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url).
 * Null when either step fails or the file is over `maxBytes`.
 */
export async function downloadMedia(ctx: WhatsAppContext, account: WhatsAppAccount, mediaId: string, maxBytes = MAX_MEDIA_BYTES): Promise<{ bytes: Buffer; mimeType: string } | null> {
  if (!account.token) return null;
  const headers = { authorization: `Bearer ${account.token}` };
  const { whatsappGraphUrl, whatsappGraphVersion } = ctx.config;
  try {
    // phone_number_id: Meta gives the media only if it belongs to this number, whoever signed the delivery naming it.
    const lookupUrl = `${whatsappGraphUrl}/${whatsappGraphVersion}/${encodeURIComponent(mediaId)}?phone_number_id=${encodeURIComponent(account.phone_number_id)}`;
    const lookup = await fetch(lookupUrl, { headers, signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    const media = (await lookup.json().catch(() => undefined)) as { url?: unknown; mime_type?: unknown } | undefined;
    if (!lookup.ok || typeof media?.url !== 'string') return null;
    const file = await fetch(media.url, { headers, signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    if (!file.ok || Number(file.headers.get('content-length') ?? 0) > maxBytes) return null;
    const bytes = Buffer.from(await file.arrayBuffer());
    if (bytes.length > maxBytes) return null;
    return { bytes, mimeType: typeof media.mime_type === 'string' ? media.mime_type : (file.headers.get('content-type') ?? '') };
  } catch {
    return null;
  }
}

/** The `send_message` block over WhatsApp: from the number the session runs on, as a free-form text. */
export async function sendWhatsAppText(ctx: WhatsAppContext, message: OutgoingMessage): Promise<MessagingResult> {
  const account = await accountByNumber(ctx, message.tenantId, message.from);
  if (!account) return { ok: false, reason: 'not_configured' };
  return sendWhatsApp(ctx, account, message.to, textMessages(message.text), null, message.at);
}

/** The replies among a turn's actions, sent to the conversation's user. */
export function sendReplies(ctx: WhatsAppContext, account: WhatsAppAccount, to: string, sessionId: string, actions: readonly Action[]): Promise<MessagingResult> {
  // A reply a template's block already sent (to keep their order) is not sent again.
  const messages = actions.flatMap((action) => (action.type === 'reply' && !action.sent ? replyMessages(action.text, action.options) : []));
  return messages.length === 0 ? Promise.resolve({ ok: true }) : sendWhatsApp(ctx, account, to, messages, sessionId);
}

/** How far a sent message got, as Meta reports it; a status never goes back (statuses may arrive out of order). */
const statusRank: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, read: 3, failed: 4 };
export const deliveryStatuses = ['sent', 'delivered', 'read', 'failed'] as const;

/** Records a delivery status of one of our messages; one of another sender (unknown id) is left alone. */
export async function recordStatus(db: Kysely<Database>, numberId: number, messageId: string, status: (typeof deliveryStatuses)[number], error: string, errorCode: number | null = null): Promise<void> {
  const before = Object.keys(statusRank).filter((name) => statusRank[name]! < statusRank[status]!);
  await db
    .updateTable('whatsapp_messages')
    .set({ status, error, error_code: errorCode, updated_time: new Date().toISOString() })
    .where('id', '=', messageId)
    .where('number_id', '=', numberId)
    .where('direction', '=', 'outbound')
    .where('status', 'in', before)
    .execute();
}

/** The sweeper's and the hand-off's turns (chat-channels.ts): their replies go out as any turn's. */
export const sendChatTurn: ChatSender = async (ctx, { session, outcome }) => {
  const account = await accountByNumber(ctx, session.tenant_id, session.called);
  const result = account ? await sendReplies(ctx, account, session.caller, session.id, outcome.actions) : { ok: false, reason: 'not_configured' };
  if (!result.ok) throw new Error(`WhatsApp replies of session ${session.id} not sent: ${result.reason}`);
};
