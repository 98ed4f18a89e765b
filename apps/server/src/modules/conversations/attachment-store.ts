/**
 * Where a conversation's files are kept, whoever sent them: the agent's uploads and the customer's
 * files a channel fetched (WhatsApp's media), in the database beside the conversation, per tenant,
 * removed with it (retention included), served by a signed URL (attachments.ts).
 */
import type { ConversationMessageAttachment } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { nowIso } from '../../lib/time.ts';
import type { MediaUrls } from '../audios/media-urls.ts';

/** A message's attachment as stored (JSON): a link someone gave, or a file uploaded here. */
export type StoredAttachment = { url: string; content_type: string; name: string } | { attachment_id: number; content_type: string; name: string; size: number };

/** The stored attachment as a message shows it: an uploaded file by its signed URL, signed now. */
export function attachmentView(media: Pick<MediaUrls, 'attachmentUrl'>, json: string | null): ConversationMessageAttachment | null {
  if (json === null) return null;
  const stored = JSON.parse(json) as StoredAttachment;
  if ('attachment_id' in stored) return { url: media.attachmentUrl(stored.attachment_id), content_type: stored.content_type, name: stored.name, size: stored.size };
  return { url: stored.url, content_type: stored.content_type, name: stored.name, size: null };
}

export interface AttachmentFile {
  name: string;
  content_type: string;
  bytes: Buffer;
}

/** Stores the file under the conversation and answers it as a message carries it. */
export async function storeAttachment(db: Kysely<Database>, conversation: { id: number; tenant_id: number }, file: AttachmentFile): Promise<StoredAttachment> {
  const stored = await db
    .insertInto('conversation_attachments')
    .values({ tenant_id: conversation.tenant_id, conversation_id: conversation.id, name: file.name, content_type: file.content_type, size: file.bytes.length, data: file.bytes, created_at: nowIso() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { attachment_id: stored.id, content_type: file.content_type, name: file.name, size: file.bytes.length };
}
