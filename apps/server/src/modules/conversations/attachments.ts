/**
 * Files an agent sends in a conversation (docs/conversations.md, "Attachments"): uploaded under the
 * conversation, refused before they are stored when the chat's channel does not take them
 * (`attachmentLimits`, per provider), kept in the database beside the conversation (removed with it),
 * and served to the channels, the widget and the console by a signed URL that needs no token.
 */
import multipart from '@fastify/multipart';
import {
  type AttachmentCheck,
  attachmentStoreMaxBytes,
  baseContentType,
  bytesPerMb,
  checkAttachment,
  type ConversationMessage,
  conversationLimits,
  conversationMessageSchema,
  largestAttachment,
  megabytesOf,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest } from '../../errors.ts';
import { scopeOf, writerGuard } from '../../plugins/auth.ts';
import { readUpload } from '../audios/audios.routes.ts';
import { attachmentView, type StoredAttachment, storeAttachment } from './attachment-store.ts';
import { assertInCustomerWindow } from './customer-window.ts';
import { type ConversationRecord } from './conversation-records.ts';
import { heldConversation, postAgentMessage } from './agent-actions.ts';

export type { StoredAttachment };
export { attachmentView };

/** Why the chat's channel does not take this file, as the catalogue words it (the console says the same before uploading). */
export function attachmentRefusal(refused: Exclude<AttachmentCheck, { ok: true }>, contentType: string): AppError {
  if (refused.code === 'attachment_too_large') {
    return new AppError(413, 'attachment_too_large', [{ path: 'file', message: `bigger than ${megabytesOf(refused.maxBytes)} MB` }], undefined, { maxSize: megabytesOf(refused.maxBytes) });
  }
  const type = contentType || 'application/octet-stream';
  return new AppError(415, 'attachment_type_not_supported', [{ path: 'file', message: `${type} is not taken by this channel` }], undefined, { type });
}

/**
 * Images are shown inline (the widget, the console): an image's bytes must be what its type says,
 * so that nothing else is ever shown as one. JPEG, PNG, GIF and WebP by their signatures.
 */
function imageMatches(type: string, bytes: Buffer): boolean {
  const starts = (signature: string, offset = 0) => bytes.subarray(offset, offset + signature.length / 2).equals(Buffer.from(signature, 'hex'));
  switch (type) {
    case 'image/jpeg':
      return starts('ffd8ff');
    case 'image/png':
      return starts('89504e470d0a1a0a');
    case 'image/gif':
      return starts('474946383761') || starts('474946383961');
    case 'image/webp':
      return starts('52494646') && starts('57454250', 8);
    default:
      return true;
  }
}

/** A file's name as people read it: the last segment of what the browser sent, at most 200 characters. */
const fileName = (filename: string) => (filename.split(/[\\/]/).pop() ?? '').trim().slice(0, 200) || 'file';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * `POST /conversations/{id}/attachments`: the agent holding the chat sends a file (with an optional
 * text). Only this route takes multipart bodies; the conversation is checked before the body is read.
 */
export async function registerConversationAttachmentRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  deliver: (request: FastifyRequest, record: ConversationRecord, message: ConversationMessage) => Promise<void>,
): Promise<void> {
  await app.register(async (scoped) => {
    await scoped.register(multipart, { throwFileSizeLimit: true });
    scoped.withTypeProvider<ZodTypeProvider>().post(
      '/conversations/:id/attachments',
      {
        ...writerGuard,
        schema: {
          tags: ['conversations'],
          params: idParams,
          consumes: ['multipart/form-data'],
          description:
            'multipart/form-data: file, text (optional). The agent holding the conversation sends a file the chat’s channel takes (its types and sizes per provider: ' +
            'docs/conversations.md “Attachments”): 415 attachment_type_not_supported, 413 attachment_too_large otherwise. The message carries the file’s signed URL.',
          response: { 201: conversationMessageSchema },
        },
      },
      async (request, reply) => {
        const scope = scopeOf(request);
        const record = await heldConversation(ctx, scope, request.params.id);
        // A file is free-form: past the customer service window it is refused before its body is read.
        await assertInCustomerWindow(ctx, record);
        const largest = Math.min(largestAttachment(record.provider), attachmentStoreMaxBytes);
        if (largest === 0) throw attachmentRefusal({ ok: false, code: 'attachment_type_not_supported' }, '');
        const upload = await readUpload(request, largest / bytesPerMb, () => attachmentRefusal({ ok: false, code: 'attachment_too_large', maxBytes: largest }, ''));
        const text = (upload.fields.text ?? '').trim();
        if (!upload.file || upload.file.bytes.length === 0) throw badRequest('invalid_input', [{ path: 'file', message: 'required' }]);
        if (text.length > conversationLimits.text) throw badRequest('invalid_input', [{ path: 'text', message: `at most ${conversationLimits.text} characters` }]);
        const { bytes, filename } = upload.file;
        const contentType = baseContentType(upload.file.mimetype);
        const checked = checkAttachment(record.provider, contentType, bytes.length);
        if (!checked.ok) throw attachmentRefusal(checked, contentType);
        if (!imageMatches(contentType, bytes)) throw attachmentRefusal({ ok: false, code: 'attachment_type_not_supported' }, contentType);
        const attachment = await storeAttachment(ctx.db, record, { name: fileName(filename), content_type: contentType, bytes });
        const message = await postAgentMessage(ctx, scope, record.id, { text, attachment }, (held, added) => deliver(request, held, added));
        return reply.status(201).send(message);
      },
    );
  });
}
