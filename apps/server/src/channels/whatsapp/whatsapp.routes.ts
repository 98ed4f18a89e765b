/**
 * Meta's WhatsApp Cloud API webhook of a number (docs/channels-whatsapp.md): the verification
 * handshake (GET) and the deliveries (POST) of messages and statuses, at the URL the numbers
 * screen shows (`/hooks/whatsapp/{number id}`). Every delivery's `X-Hub-Signature-256` is checked
 * against the raw body with the number's app secret before anything runs. A conversation is a
 * chat session (docs/sessions.md); Meta's message ids are its event ids, so a redelivery runs
 * nothing twice.
 */
import { createHmac } from 'node:crypto';
import { attachmentStoreMaxBytes, baseContentType, customerLimits } from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest, forbidden } from '../../errors.ts';
import { safeEqualHex } from '../../lib/keys.ts';
import { createTranscriber } from '../../modules/ai/transcribe.ts';
import { choosePlan, findNumber } from '../../modules/numbers/number-lookup.ts';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import type { AttachmentFile } from '../../modules/conversations/attachment-store.ts';
import { deskEvents } from '../../modules/conversations/desk.ts';
import { routeCustomerMessage } from '../../modules/conversations/customer-router.ts';
import { applyTemplateStatus } from './template-sync.ts';
import { tellOpeningStatus } from './dialer.ts';
import { accountById, contactOf, deliveryStatuses, downloadMedia, recordStatus, sendReplies, type WhatsAppAccount } from './whatsapp-channel.ts';

/** A file name's extension for a MIME type (`image/jpeg` → `jpeg`), letters and digits only. */
const extensionOf = (contentType: string): string => (contentType.split('/')[1] ?? '').replace(/[^a-z0-9]/g, '').slice(0, 10) || 'bin';

const paramsSchema = z.object({ numberId: z.coerce.number().int().positive() });

const verifyQuery = z.object({
  'hub.mode': z.string().optional(),
  'hub.verify_token': z.string().optional(),
  'hub.challenge': z.string().optional(),
});

const customerFile = z.object({ id: z.string().min(1).max(200), mime_type: z.string().max(100).optional(), caption: z.string().optional(), filename: z.string().optional() }).optional();

/** The parts of Meta's payload the channel reads; anything else in it is left alone. */
const inboundMessage = z.object({
  from: z.string().min(1),
  id: z.string().min(1).max(180),
  timestamp: z.string().optional(),
  type: z.string(),
  text: z.object({ body: z.string() }).optional(),
  interactive: z
    .object({
      type: z.string(),
      button_reply: z.object({ id: z.string(), title: z.string() }).optional(),
      list_reply: z.object({ id: z.string(), title: z.string() }).optional(),
    })
    .optional(),
  // A template's quick-reply button.
  button: z.object({ payload: z.string().optional(), text: z.string() }).optional(),
  // A voice note or an audio file: transcribed with the tenant's AI key (docs/ai.md).
  audio: z.object({ id: z.string().min(1).max(200), mime_type: z.string().optional() }).optional(),
  // A file: shown to the person holding the chat (docs/conversations.md, "Attachments"); plans do not read it.
  image: customerFile,
  document: customerFile,
  video: customerFile,
  sticker: customerFile,
});
type InboundMessage = z.infer<typeof inboundMessage>;

/** The sender's profile name from the delivery's contacts, cleaned of control characters and cut to a name's length; undefined when Meta sent none. */
function profileNameOf(contacts: readonly { wa_id?: string | undefined; profile?: { name?: string | undefined } | undefined }[], from: string): string | undefined {
  const contact = contacts.find((candidate) => candidate.wa_id === from) ?? (contacts.length === 1 ? contacts[0] : undefined);
  // eslint-disable-next-line no-control-regex -- a name is shown to agents: no control characters (PostgreSQL cannot store a NUL)
  const name = contact?.profile?.name?.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().slice(0, customerLimits.name);
  return name || undefined;
}

const deliveryStatus = z.object({
  id: z.string().min(1),
  status: z.string(),
  errors: z.array(z.object({ code: z.number().optional(), title: z.string().optional() })).optional(),
});

const deliverySchema = z.object({
  entry: z.array(
    z.object({
      // The WhatsApp Business Account: what a template's status update names its account by.
      id: z.string().optional(),
      changes: z.array(
        z.object({
          field: z.string().optional(),
          value: z.object({
            // message_template_status_update (template-sync.ts)
            event: z.string().optional(),
            message_template_id: z.union([z.string(), z.number()]).optional(),
            message_template_name: z.string().optional(),
            message_template_language: z.string().optional(),
            reason: z.string().nullable().optional(),
            metadata: z.object({ phone_number_id: z.string() }).optional(),
            // Who wrote: the WhatsApp profile name the user chose, beside their wa_id (Meta may leave it out).
            contacts: z.array(z.object({ wa_id: z.string().optional(), profile: z.object({ name: z.string().optional() }).optional() })).optional(),
            messages: z.array(inboundMessage).optional(),
            statuses: z.array(deliveryStatus).optional(),
          }),
        }),
      ),
    }),
  ),
});

/** What a message says to the plan: its text, or the id of the button or row chosen (a menu option's digits). */
export function textOf(message: InboundMessage): string | undefined {
  if (message.type === 'text') return message.text?.body;
  if (message.type === 'interactive') return message.interactive?.button_reply?.id ?? message.interactive?.list_reply?.id;
  if (message.type === 'button') return message.button?.payload || message.button?.text;
  return undefined;
}

/** The file a customer sent (an image, a document, a video, a sticker), as Meta describes it. */
function fileOf(message: InboundMessage) {
  return message.type === 'image' || message.type === 'document' || message.type === 'video' || message.type === 'sticker' ? message[message.type] : undefined;
}

/** When the user sent it: Meta's timestamp (Unix seconds), else now. */
function sentTimeOf(message: InboundMessage): string {
  const seconds = Number(message.timestamp);
  return new Date(Number.isFinite(seconds) && message.timestamp !== undefined ? seconds * 1000 : Date.now()).toISOString();
}

/** The session a first message starts: named by the message, so a redelivered first message starts nothing new. */
const startIdOf = (messageId: string): string => `whatsapp:${messageId}`;

/** Whether `sent` equals `expected`, in a time that does not tell how much of it matched. */
const sameText = (sent: string, expected: string): boolean =>
  safeEqualHex(Buffer.from(sent, 'utf8').toString('hex'), Buffer.from(expected, 'utf8').toString('hex'));

export async function whatsappHooksPlugin(app: FastifyInstance, options: { ctx: AppContext }): Promise<void> {
  const { ctx } = options;
  const transcribe = createTranscriber(ctx);
  // The signature covers the bytes Meta sent: these routes (and only these) keep the raw body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const whatsappAccount = async (request: FastifyRequest): Promise<{ numberId: number; account: WhatsAppAccount | undefined }> => {
    const { numberId } = paramsSchema.parse(request.params);
    const account = await accountById(ctx, numberId);
    return { numberId, account: account?.provider === 'whatsapp' ? account : undefined };
  };

  app.get(
    '/hooks/whatsapp/:numberId',
    {
      schema: {
        tags: ['hooks'],
        security: [],
        params: paramsSchema,
        querystring: verifyQuery,
        description:
          "Meta's webhook verification: hub.mode=subscribe and hub.verify_token equal to the number's verification token answer hub.challenge as text; anything else 403 invalid_whatsapp_verify_token. See docs/channels-whatsapp.md.",
      },
    },
    async (request, reply) => {
      const query = request.query as z.infer<typeof verifyQuery>;
      const { numberId, account } = await whatsappAccount(request);
      const token = query['hub.verify_token'] ?? '';
      if (query['hub.mode'] !== 'subscribe' || !account || account.verify_token === '' || !sameText(token, account.verify_token)) {
        request.log.warn({ number_id: numberId, mode: query['hub.mode'] }, 'WhatsApp webhook verification refused');
        throw forbidden('invalid_whatsapp_verify_token');
      }
      return reply.type('text/plain; charset=utf-8').send(query['hub.challenge'] ?? '');
    },
  );

  /** Refuses (403, logged) a delivery whose X-Hub-Signature-256 is not the HMAC-SHA256 of its raw body with the number's app secret. */
  function checkSignature(request: FastifyRequest, numberId: number, account: WhatsAppAccount | undefined, raw: Buffer): asserts account is WhatsAppAccount {
    const header = request.headers['x-hub-signature-256'];
    const sent = typeof header === 'string' && header.startsWith('sha256=') ? header.slice('sha256='.length) : undefined;
    const reason = !account
      ? 'no WhatsApp number with this id'
      : !account.app_secret
        ? 'number without an app secret'
        : sent === undefined
          ? 'missing signature'
          : safeEqualHex(sent, createHmac('sha256', account.app_secret).update(raw).digest('hex'))
            ? undefined
            : 'signature does not match';
    if (reason !== undefined) {
      request.log.warn({ number_id: numberId, reason }, 'WhatsApp delivery refused');
      throw forbidden('invalid_whatsapp_signature');
    }
  }

  /** The chat waiting for this user on this number, if any: their next message is its next event. */
  async function waitingChat(account: WhatsAppAccount, contact: string): Promise<string | undefined> {
    const row = await ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('tenant_id', '=', account.tenant_id)
      .where('status', '=', 'waiting')
      .where('provider', '=', 'whatsapp')
      .where('called', '=', account.number)
      .where('caller', '=', `+${contact}`)
      .orderBy('created_time', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * The session a message belongs to, recorded with it (the message also opens the customer
   * window): the one it was recorded with before (a redelivery), else the chat waiting for this
   * user, else a new one. Two instances given the same message agree on the one recorded first.
   * A message id is Meta's, so whoever signs a delivery chooses it: one recorded for another number
   * belongs to that number's conversation, never to this one (null, nothing runs).
   */
  async function sessionOf(account: WhatsAppAccount, message: InboundMessage, contact: string): Promise<string | null> {
    const recorded = async () => {
      const row = await ctx.db.selectFrom('whatsapp_messages').select(['number_id', 'session_id']).where('id', '=', message.id).executeTakeFirst();
      return row && { session_id: row.number_id === account.number_id ? row.session_id : null };
    };
    const known = await recorded();
    if (known) return known.session_id;
    // A voice note is read too (transcribed), so it belongs to the conversation like a text.
    // A file belongs to a chat under way (a person may hold it), and starts none.
    const readable = textOf(message) !== undefined || message.audio !== undefined;
    const sessionId = readable ? ((await waitingChat(account, contact)) ?? startIdOf(message.id)) : fileOf(message) ? ((await waitingChat(account, contact)) ?? null) : null;
    const now = new Date().toISOString();
    await ctx.db
      .insertInto('whatsapp_messages')
      .values({ id: message.id, tenant_id: account.tenant_id, number_id: account.number_id, direction: 'inbound', contact, session_id: sessionId, status: 'received', sent_time: sentTimeOf(message), updated_time: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return (await recorded())?.session_id ?? null;
  }

  async function startChat(request: FastifyRequest, account: WhatsAppAccount, sessionId: string, caller: string, profileName: string | undefined): Promise<TurnOutcome | undefined> {
    const route = await findNumber(ctx.db, account.number);
    const planId = route ? choosePlan(route, 'chat', new Date(), caller) : null;
    if (planId === null) {
      request.log.warn({ number_id: account.number_id }, 'WhatsApp message to a number without a chat plan');
      return undefined;
    }
    try {
      return await ctx.sessions.start({
        id: sessionId,
        tenant_id: account.tenant_id,
        plan_id: planId,
        channel: 'chat',
        provider: 'whatsapp',
        direction: 'inbound',
        caller,
        called: account.number,
        // Agents tell chats apart by it (docs/conversations.md); it is the user's own choice, so it decides nothing.
        ...(profileName && { customer: { name: profileName, email: null, page_url: null, external_id: null, verified: false } }),
      });
    } catch (error) {
      // A plan never published or gone: nothing can answer; Meta gets its 200 rather than retrying for days.
      if (!(error instanceof AppError) || error.statusCode >= 500 || error.code === 'session_busy') throw error;
      request.log.warn({ number_id: account.number_id, plan_id: planId, code: error.code }, 'WhatsApp chat whose plan cannot start');
      return undefined;
    }
  }

  /** A voice note's words, or undefined (logged) when it cannot be fetched or transcribed: the plan then never sees it. */
  async function transcribedAudio(request: FastifyRequest, account: WhatsAppAccount, mediaId: string): Promise<string | undefined> {
    const media = await downloadMedia(ctx, account, mediaId);
    if (!media) {
      request.log.warn({ number_id: account.number_id }, 'WhatsApp audio that could not be downloaded');
      return undefined;
    }
    const result = await transcribe(account.tenant_id, media.bytes, media.mimeType);
    if (!result.ok) {
      request.log.warn({ number_id: account.number_id, code: result.code }, 'WhatsApp audio that could not be transcribed');
      return undefined;
    }
    return result.text;
  }

  /** A customer's file from Meta, named by its filename (a document) or its kind; null (logged) when it cannot be had. */
  async function customerFile(request: FastifyRequest, account: WhatsAppAccount, kind: string, file: NonNullable<ReturnType<typeof fileOf>>): Promise<AttachmentFile | null> {
    const media = await downloadMedia(ctx, account, file.id, attachmentStoreMaxBytes);
    if (!media) {
      request.log.warn({ number_id: account.number_id, type: kind }, 'WhatsApp file that could not be downloaded');
      return null;
    }
    const contentType = baseContentType(media.mimeType || file.mime_type || 'application/octet-stream');
    return { name: file.filename || `${kind}.${extensionOf(contentType)}`, content_type: contentType, bytes: media.bytes };
  }

  async function receive(request: FastifyRequest, account: WhatsAppAccount, message: InboundMessage, profileName: string | undefined): Promise<void> {
    const contact = contactOf(message.from);
    const caller = `+${contact}`;
    const sessionId = await sessionOf(account, message, contact);
    const isFirst = sessionId === startIdOf(message.id);
    const file = fileOf(message);
    if (file && sessionId !== null && !isFirst) {
      // Fetched from Meta and kept with the conversation's files; should Meta not give it, what arrived: its type, name and caption.
      const attachment = { url: '', content_type: file.mime_type ?? '', name: file.filename ?? '' };
      const fetch = () => customerFile(request, account, message.type, file);
      if (await routeCustomerMessage(ctx, sessionId, { text: file.caption ?? '', attachment, file: fetch, external_id: message.id }, deskEvents(ctx))) return;
    }
    // A first message only opens the conversation: what it says is not read, so it is not transcribed either.
    const text = textOf(message) ?? (message.audio && sessionId !== null && !isFirst ? await transcribedAudio(request, account, message.audio.id) : undefined);
    if (text === undefined || sessionId === null) {
      request.log.info({ number_id: account.number_id, type: message.type }, 'WhatsApp message of a kind plans do not read');
      return;
    }
    // A person holds the chat (docs/conversations.md): the message is theirs, not the plan's.
    if (!isFirst && (await routeCustomerMessage(ctx, sessionId, { text, external_id: message.id }, deskEvents(ctx)))) return;
    // The first message opens the conversation (the plan greets); the next ones are its answers.
    const outcome =
      isFirst
        ? await startChat(request, account, sessionId, caller, profileName)
        : await ctx.sessions.handleTurn(sessionId, message.id, { type: 'message', text }, { tenantId: account.tenant_id });
    // A redelivery was answered when it first came.
    if (!outcome || outcome.duplicate) return;
    const sent = await sendReplies(ctx, account, caller, sessionId, outcome.actions);
    if (!sent.ok) request.log.warn({ number_id: account.number_id, session_id: sessionId, reason: sent.reason }, 'WhatsApp replies not sent');
  }

  app.post(
    '/hooks/whatsapp/:numberId',
    {
      schema: {
        tags: ['hooks'],
        security: [],
        params: paramsSchema,
        consumes: ['application/json'],
        description:
          "Meta's deliveries for the number: messages (text, button and list replies) run its chat plan, statuses (sent, delivered, read, failed) are recorded, " +
          'message_template_status_update changes update the templates of the tenant’s numbers with that WhatsApp Business Account. ' +
          'X-Hub-Signature-256 must be sha256=HMAC-SHA256(raw body, the number’s app secret), else 403 invalid_whatsapp_signature and nothing runs. Answers 200; ' +
          '503 database_unavailable (Retry-After) while the database is away, so that Meta delivers it again. See docs/channels-whatsapp.md.',
      },
    },
    // While the database is away a delivery fails as a whole and the errors plugin answers 503
    // database_unavailable: a delivery not answered 200 is delivered again with increasing delays
    // (Meta, https://developers.facebook.com/docs/whatsapp/cloud-api/guides/set-up-webhooks; as
    // 360dialog's Cloud API guide puts it, "if the webhook request returns a HTTP status code other
    // than 200, we retry the webhook delivery", https://docs.360dialog.com/docs/waba-basics/webhook-events-and-notifications).
    // Each message runs once (its id is the turn's event id), so the redelivery after the outage is
    // answered then rather than lost; answering 200 would drop it.
    async (request, reply) => {
      const { numberId, account } = await whatsappAccount(request);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      checkSignature(request, numberId, account, raw);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('invalid_input', [{ path: '', message: 'the body is not JSON' }]);
      }
      const delivery = deliverySchema.safeParse(parsed);
      if (!delivery.success) throw badRequest('invalid_input', delivery.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })));
      for (const [entry, change] of delivery.data.entry.flatMap((entry) => entry.changes.map((change) => [entry, change] as const))) {
        if (change.field === 'message_template_status_update') {
          const { event } = change.value;
          // Applied to the numbers of this number's tenant that send with that account: the delivery was signed with this number's secret.
          if (event) await applyTemplateStatus(ctx, account.tenant_id, entry.id ?? '', { ...change.value, event }, request.log);
          continue;
        }
        const { metadata, contacts = [], messages = [], statuses = [] } = change.value;
        // An app's webhook may carry its other numbers' traffic: each number answers its own.
        if (metadata && account.phone_number_id !== '' && metadata.phone_number_id !== account.phone_number_id) {
          request.log.info({ number_id: numberId, phone_number_id: metadata.phone_number_id }, 'WhatsApp delivery for another phone number id left alone');
          continue;
        }
        for (const message of messages) await receive(request, account, message, profileNameOf(contacts, message.from));
        for (const status of statuses) {
          const name = deliveryStatuses.find((candidate) => candidate === status.status);
          const error = status.errors?.[0];
          if (!name) continue;
          await recordStatus(ctx.db, numberId, status.id, name, error ? `${error.code ?? ''} ${error.title ?? ''}`.trim() : '', error?.code ?? null);
          // The opening message of a conversation the business started tells its outcome (docs/outbound.md).
          await tellOpeningStatus(ctx, numberId, status.id, name, error);
        }
      }
      return reply.status(200).send({ ok: true });
    },
  );
}
