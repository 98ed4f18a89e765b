import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

export const destinationKinds = ['voice', 'chat'] as const;
export type DestinationKind = (typeof destinationKinds)[number];

export const destinationUriMaxLength = 500;

/** Where a chat destination hands the chat: an outside desk's URL, or a queue of the tenant's users (docs/conversations.md). */
export const chatTargets = ['url', 'queue'] as const;
export type ChatTarget = (typeof chatTargets)[number];
/** A queue's closing message, in characters. */
export const destinationClosingMessageMax = 1000;
/** What a queue says on resolve when it has no closing message of its own, by language (docs/conversations.md, "Closing"). */
export const defaultClosingMessages = {
  en: 'Thank you for contacting us. This conversation is now closed; write again whenever you need us.',
  pt: 'Obrigado pelo contato. Esta conversa foi encerrada; escreva de novo quando precisar.',
} as const;
/**
 * What a customer waiting in a queue is told of their place (docs/conversations.md, "Waiting in a
 * queue"): once when the wait starts, then on each change. `{place}` is their place, `{minutes}`
 * the expected wait, a line of its own only when recent waits give one.
 */
export const queuePlaceMessages = {
  en: { next: 'A person will be with you shortly: you are next in the queue.', place: 'A person will be with you shortly: you are number {place} in the queue.', wait: 'Expected wait: about {minutes} min.' },
  pt: { next: 'Uma pessoa vai atender você em breve: você é o próximo da fila.', place: 'Uma pessoa vai atender você em breve: você é o número {place} da fila.', wait: 'Espera estimada: cerca de {minutes} min.' },
} as const;
/** Users one queue may name. */
export const destinationAgentsMax = 200;

/**
 * The refinement messages name console translation keys (validation.custom.<message>), so that
 * the form and the API's details say the same thing.
 */
export const destinationUriMessages: Record<DestinationKind, string> = { voice: 'invalidVoiceUri', chat: 'invalidChatUri' };

// RFC 3261 section 25.1, narrowed to what a PBX is dialled with: sip: or sips:, an optional
// user part (with an optional password), a host, an optional port, then ;parameters and ?headers.
const SIP = /^sips?:(?:([^\s@;?]+)@)?(\[[^\]\s]+\]|[^\s:;?[\]]+)(?::(\d{1,5}))?(?:;[^\s?;]+)*(?:\?\S+)?$/i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const DECIMAL_PARTS = /^\d+(?:\.\d+)*$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A host name whose last label starts with a letter, an IPv4 address, or an IPv6 one in brackets. */
function isSipHost(host: string): boolean {
  if (host.startsWith('[')) return ipaddr.IPv6.isValid(host.slice(1, -1)) && !host.includes('%');
  if (DECIMAL_PARTS.test(host)) return IPV4.test(host);
  const labels = (host.endsWith('.') ? host.slice(0, -1) : host).split('.');
  return labels.every((label) => LABEL.test(label)) && /^[a-z]/i.test(labels.at(-1) ?? '');
}

function isSipUri(uri: string): boolean {
  const match = SIP.exec(uri);
  if (!match) return false;
  const [, , host, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return isSipHost(host!);
}

// RFC 3966: a global number (+ and digits, with - . ( ) as visual separators) or a local one
// (digits, * and #), followed by ;name or ;name=value parameters. At least one digit either way.
const TEL = /^tel:(?:\+[\d().-]*\d[\d().-]*|[\d*#().-]*[\d*#][\d*#().-]*)(?:;[a-z0-9-]+(?:=[^\s;]+)?)*$/i;

/** Only https, written out in full ("https:host" is something URL would quietly repair). */
function isHttpsUrl(uri: string): boolean {
  if (!/^https:\/\/[^\s/?#]/i.test(uri) || /\s/.test(uri)) return false;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A voice destination is a SIP or tel URI; a chat destination is an https URL, or nothing for a queue. */
export function isValidDestinationUri(kind: DestinationKind, uri: string, chatTarget: ChatTarget | null = null): boolean {
  if (kind === 'voice') return isSipUri(uri) || TEL.test(uri);
  if (chatTarget === 'queue') return uri === '';
  return isHttpsUrl(uri);
}

/** What a destination's chat target must be: null for voice, 'url' unless said otherwise for chat. */
export const chatTargetOf = (kind: DestinationKind, chatTarget: ChatTarget | null | undefined): ChatTarget | null =>
  kind === 'voice' ? null : (chatTarget ?? 'url');

export const destinationSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  kind: z.enum(destinationKinds),
  uri: z.string(),
  description: z.string(),
  chat_target: z.enum(chatTargets).nullable(),
  /** The users who serve a chat queue; empty otherwise. */
  agent_ids: z.array(idSchema),
  /** A queue's message to the customer when an agent resolves the chat, by language; '' sends the default. */
  closing_message_en: z.string(),
  closing_message_pt: z.string(),
});
export type Destination = z.infer<typeof destinationSchema>;

const destinationFields = {
  name: z.string().trim().min(1).max(100),
  kind: z.enum(destinationKinds),
  uri: z.string().trim().max(destinationUriMaxLength),
  description: z.string().max(500),
  chat_target: z.enum(chatTargets).nullable(),
  agent_ids: z.array(idSchema).max(destinationAgentsMax),
  closing_message_en: z.string().trim().max(destinationClosingMessageMax),
  closing_message_pt: z.string().trim().max(destinationClosingMessageMax),
};

/** The message of a URI that does not suit the destination: a queue takes none. */
export const destinationUriMessage = (kind: DestinationKind, chatTarget: ChatTarget | null): string =>
  kind === 'chat' && chatTarget === 'queue' ? 'queueTakesNoUri' : destinationUriMessages[kind];

/** The URI must suit the kind; checked when both are known, so a patch of one alone is checked by the server against the record. */
export function checkDestinationUri(value: { kind?: DestinationKind; uri?: string; chat_target?: ChatTarget | null }, ctx: z.RefinementCtx): void {
  if (value.kind === undefined) return;
  if (value.kind === 'voice' && value.chat_target) ctx.addIssue({ code: 'custom', path: ['chat_target'], message: 'voiceHasNoChatTarget' });
  if (value.uri === undefined) return;
  const target = chatTargetOf(value.kind, value.chat_target);
  if (!isValidDestinationUri(value.kind, value.uri, target)) ctx.addIssue({ code: 'custom', path: ['uri'], message: destinationUriMessage(value.kind, target) });
}

/**
 * Runs the check even when another field (the name) is missing, so that every mistake shows at
 * once, but not when the kind or the URI is itself wrong: that field already has its message.
 */
const uriCheckParams = {
  when: (payload: z.core.ParsePayload): boolean => {
    const value = payload.value as { kind?: unknown; uri?: unknown } | null;
    if (typeof value !== 'object' || value === null) return false;
    if (payload.issues.some((issue) => ['kind', 'uri', 'chat_target'].includes(String(issue.path?.[0])))) return false;
    return (destinationKinds as readonly unknown[]).includes(value.kind);
  },
};

export const destinationCreateSchema = z
  .object({
    ...destinationFields,
    description: destinationFields.description.default(''),
    uri: destinationFields.uri.default(''),
    chat_target: destinationFields.chat_target.optional(),
    agent_ids: destinationFields.agent_ids.default([]),
    closing_message_en: destinationFields.closing_message_en.default(''),
    closing_message_pt: destinationFields.closing_message_pt.default(''),
  })
  .strict()
  .superRefine(checkDestinationUri, uriCheckParams);
export const destinationUpdateSchema = z.object(destinationFields).partial().strict().superRefine(checkDestinationUri, uriCheckParams);
export type DestinationInput = z.input<typeof destinationCreateSchema>;
