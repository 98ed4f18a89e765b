/**
 * A web chat visitor sends a file (docs/channels-webchat.md, "Files"): the widget's upload, behind
 * the same gate as the visitor's messages (the number's key, its origins, the rate limits, all in the
 * plugin's `onRequest` before the body is read). Plans do not read files, as on WhatsApp: a file goes
 * to the conversation that holds the chat (waiting in a queue, or with a person), stored with its
 * files per tenant as an agent's are, and refused while the plan has the chat.
 */
import multipart from '@fastify/multipart';
import {
  baseContentType,
  bytesPerMb,
  checkAttachment,
  largestAttachment,
  webchatConversationSchema,
  webchatFileFieldsSchema,
  type WebchatConversation,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict } from '../../errors.ts';
import { contentMatches } from '../../lib/file-content.ts';
import { readUpload } from '../../modules/audios/audios.routes.ts';
import { activeConversationOf } from '../../modules/conversations/conversation-records.ts';
import { attachmentRefusal } from '../../modules/conversations/attachments.ts';
import { deskEvents } from '../../modules/conversations/desk.ts';
import { detailsFromZod } from '../../plugins/errors.ts';
import { routeCustomerMessage } from '../../modules/conversations/customer-router.ts';

const PROVIDER = 'webchat';

/** A file's name as people read it: the last segment of what the browser sent, at most 200 characters, no control characters. */
// eslint-disable-next-line no-control-regex -- dropping control characters is the point
const fileName = (filename: string) => (filename.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().slice(0, 200) || 'file';

const params = z.object({ key: z.string().min(1).max(100), id: z.string().min(1).max(200) });

export interface VisitorFileRoutes {
  /** The session, if it is one of the request's number's web chats; else `404 session_not_found`. */
  conversationOf: (request: FastifyRequest, id: string) => Promise<unknown>;
  /** The conversation as the widget reads it. */
  view: (request: FastifyRequest, id: string) => Promise<WebchatConversation>;
}

/** `POST /webchat/{key}/conversations/{id}/files`, in the web chat plugin's scope (its gate applies). */
export async function registerVisitorFileRoute(app: FastifyInstance, ctx: AppContext, routes: VisitorFileRoutes): Promise<void> {
  await app.register(async (scoped) => {
    await scoped.register(multipart, { throwFileSizeLimit: true });
    scoped.withTypeProvider<ZodTypeProvider>().post(
      '/webchat/:key/conversations/:id/files',
      {
        schema: {
          tags: ['webchat'],
          security: [],
          params,
          consumes: ['multipart/form-data'],
          description:
            'multipart/form-data: file, id (the widget’s id for it: a retry stores it once), text (optional). The visitor sends a file while the chat waits for a person or one ' +
            'attends it (409 webchat_files_need_a_person while the plan has it: plans do not read files). The web chat’s types and sizes (docs/conversations.md “Attachments”), ' +
            'the content checked against the type: 415 attachment_type_not_supported, 413 attachment_too_large. Answers the conversation.',
          response: { 200: webchatConversationSchema },
        },
      },
      async (request) => {
        const { id } = request.params;
        // The session and who holds it are checked before the body is read: a refused upload reads nothing.
        await routes.conversationOf(request, id);
        if (!(await activeConversationOf(ctx.db, id))) throw conflict('webchat_files_need_a_person');
        const largest = largestAttachment(PROVIDER);
        const upload = await readUpload(request, largest / bytesPerMb, () => attachmentRefusal({ ok: false, code: 'attachment_too_large', maxBytes: largest }, ''));
        const fields = webchatFileFieldsSchema.safeParse(upload.fields);
        if (!fields.success) throw badRequest('invalid_input', detailsFromZod(fields.error));
        if (!upload.file || upload.file.bytes.length === 0) throw badRequest('invalid_input', [{ path: 'file', message: 'required' }]);
        const { bytes, filename } = upload.file;
        const contentType = baseContentType(upload.file.mimetype);
        const checked = checkAttachment(PROVIDER, contentType, bytes.length);
        if (!checked.ok) throw attachmentRefusal(checked, contentType);
        // The declared type is the browser's guess from the name: the bytes must agree.
        if (!contentMatches(contentType, bytes)) throw attachmentRefusal({ ok: false, code: 'attachment_type_not_supported' }, contentType);
        const file = { name: fileName(filename), content_type: contentType, bytes };
        const isHeld = await routeCustomerMessage(ctx, id, { text: fields.data.text ?? '', file: () => Promise.resolve(file), external_id: `message:${fields.data.id}` }, deskEvents(ctx));
        // Closed while it was read: the plan has the chat again, and nothing was stored.
        if (!isHeld) throw conflict('webchat_files_need_a_person');
        return routes.view(request, id);
      },
    );
  });
}
