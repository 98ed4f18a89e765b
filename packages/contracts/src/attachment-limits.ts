
/**
 * What an agent may send as a file on each chat provider (issue 30, docs/conversations.md
 * "Attachments"): one table, keyed by provider, that the server enforces on upload and the console
 * checks before uploading. A provider not listed takes no files (voice: Twilio, Asterisk).
 *
 * Kept on its own so that the channels' layer (one folder per provider, with its limits) can take
 * each row into its provider's folder.
 */

/**
 * Bytes in one "Mb" of the upload limits' messages (the audios' and these). Here, in a module without
 * zod, so that the console's conversations take the limits without the schemas.
 */
export const bytesPerMb = 1024 * 1024;

/** How WhatsApp sends a file: its Graph API message types for media. */
export const attachmentKinds = ['image', 'document', 'audio', 'video'] as const;
export type AttachmentKind = (typeof attachmentKinds)[number];

export interface AttachmentRule {
  kind: AttachmentKind;
  /** MIME types, lower case, without parameters. */
  types: readonly string[];
  maxBytes: number;
}

/**
 * Files are kept in the database beside the conversation: no file over this is stored, whatever a
 * channel would take (WhatsApp's documents go to 100 MB).
 */
export const attachmentStoreMaxBytes = 16 * bytesPerMb;

const officeTypes = [
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
];

/**
 * WhatsApp Cloud API's supported media, types and sizes, as Meta documents them
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types):
 * images JPEG and PNG up to 5 MB; audio AAC, AMR, MP3, MP4 audio and OGG (Opus) up to 16 MB; video
 * MP4 and 3GPP up to 16 MB; documents (text, PDF, Word, Excel, PowerPoint) up to 100 MB, here the
 * store's 16 MB. Stickers (WebP) are not offered: a WebP image is refused rather than sent as one.
 */
const whatsapp: readonly AttachmentRule[] = [
  { kind: 'image', types: ['image/jpeg', 'image/png'], maxBytes: 5 * bytesPerMb },
  { kind: 'audio', types: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'], maxBytes: 16 * bytesPerMb },
  { kind: 'video', types: ['video/mp4', 'video/3gpp'], maxBytes: 16 * bytesPerMb },
  { kind: 'document', types: ['text/plain', 'application/pdf', ...officeTypes], maxBytes: attachmentStoreMaxBytes },
];

/**
 * The web chat's widget shows images inline and offers every other file as a download; 10 MB keeps a
 * visitor's page light. The types are those a browser shows or a person opens, none it would run
 * (no HTML, SVG or scripts: the file is served from the API's origin).
 */
const webchat: readonly AttachmentRule[] = [
  { kind: 'image', types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'], maxBytes: 10 * bytesPerMb },
  { kind: 'audio', types: ['audio/mpeg', 'audio/ogg', 'audio/aac', 'audio/mp4', 'audio/wav'], maxBytes: 10 * bytesPerMb },
  { kind: 'video', types: ['video/mp4', 'video/webm'], maxBytes: 10 * bytesPerMb },
  { kind: 'document', types: ['text/plain', 'text/csv', 'application/pdf', 'application/zip', ...officeTypes], maxBytes: 10 * bytesPerMb },
];

export const attachmentLimits: Readonly<Record<string, readonly AttachmentRule[]>> = {
  whatsapp,
  webchat,
  // The console's test panel shows the link: what the web chat takes.
  simulator: webchat,
};

/** A MIME type as compared: lower case, without parameters (`audio/ogg; codecs=opus` → `audio/ogg`). */
export const baseContentType = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();

export type AttachmentCheck = { ok: true; rule: AttachmentRule } | { ok: false; code: 'attachment_type_not_supported' } | { ok: false; code: 'attachment_too_large'; maxBytes: number };

/** Whether a file of this type and size may go to a chat of this provider, and as what. */
export function checkAttachment(provider: string, contentType: string, size: number): AttachmentCheck {
  const type = baseContentType(contentType);
  const rule = attachmentLimits[provider]?.find((candidate) => candidate.types.includes(type));
  if (!rule) return { ok: false, code: 'attachment_type_not_supported' };
  if (size > rule.maxBytes) return { ok: false, code: 'attachment_too_large', maxBytes: rule.maxBytes };
  return { ok: true, rule };
}

/** Bytes as the refusal names them: megabytes with one decimal (the catalogue's {{maxSize}}). */
export const megabytesOf = (bytes: number): number => Math.round((bytes / bytesPerMb) * 10) / 10;

/** The biggest file a provider takes of any type: what an upload reads at most. */
export const largestAttachment = (provider: string): number => Math.max(0, ...(attachmentLimits[provider] ?? []).map((rule) => rule.maxBytes));
