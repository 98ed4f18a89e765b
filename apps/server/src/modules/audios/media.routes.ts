import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { espeakLanguageFor, espeakVoiceIds } from '@voxplan/contracts/voices';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import pLimit from 'p-limit';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, forbidden } from '../../errors.ts';
import { convertToTelephony, mimeTypes, speakWithEspeak, ToolError, withTempDir } from './audio-tools.ts';
import { sendBytes, sendTelephonyCopy } from './audios.routes.ts';
import { createMediaUrls, type MediaCheck } from './media-urls.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
// Checked by hand, so that a URL missing either part answers 403 like a tampered one, not 400.
const query = z.object({ exp: z.string().optional(), sig: z.string().optional() });
const speechQuery = query.extend({
  text: z.string().min(1).max(5000),
  lang: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/),
  voice: z.enum(espeakVoiceIds).optional().describe("an espeak-ng variant of the plan's (m1…m8, f1…f5)"),
});

/** Two cores per machine: speech for calls is spoken two at a time, like the audio generations. */
const speaking = pLimit(2);

/**
 * espeak-ng's language for a plan's (the voices list's: `pt-BR` → `pt-br`, `es-MX` → `es-419`),
 * else its language alone (`de-AT` → `de`), else English, so that a call hears something rather
 * than silence; in the plan's voice variant when it chose one.
 */
async function speakTelephony(text: string, language: string, voice: string, output: string): Promise<void> {
  const tag = espeakLanguageFor(language);
  const candidates = [...new Set([tag, tag.split('-')[0]!, 'en'])];
  await withTempDir(async (dir) => {
    const textFile = path.join(dir, 'text.txt');
    const spoken = path.join(dir, 'spoken.wav');
    await fs.writeFile(textFile, text);
    for (const [index, candidate] of candidates.entries()) {
      try {
        await speakWithEspeak(textFile, candidate, voice, spoken);
        break;
      } catch (error) {
        if (!(error instanceof ToolError) || index === candidates.length - 1) throw error;
      }
    }
    const converted = path.join(dir, 'telephony.wav');
    await convertToTelephony(spoken, converted);
    // The temporary folder may be on another file system: copied beside the target, then renamed.
    const partial = `${output}.${randomUUID()}.part`;
    await fs.copyFile(converted, partial);
    await fs.rename(partial, output);
  });
}

/** A request whose signature did not hold: refused (403) and logged with what it asked for. */
function refuseUnsigned(request: FastifyRequest, check: MediaCheck, asked: Record<string, unknown>): void {
  if (check === 'ok') return;
  request.log.warn({ ...asked, check }, 'media URL refused');
  throw forbidden(check === 'expired' ? 'media_url_expired' : 'invalid_media_signature');
}

/** The schema of a media route by id: no token, the signature in the query. */
const byIdSchema = (description: string) => ({ tags: ['media'], params, querystring: query, security: [], description });

/**
 * `GET /media/audios/{id}?exp&sig`: the audio's telephony copy for a provider (Twilio's `<Play>`),
 * which sends no token. The signature is the credential; it is checked before the database is read,
 * so an unsigned request costs nothing and learns nothing about which audios exist.
 */
export function registerMediaRoutes(app: FastifyInstance, ctx: AppContext): void {
  const media = createMediaUrls(ctx.keys.mediaKey, ctx.config.publicUrl);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/media/audios/:id',
    {
      schema: byIdSchema(
        'The audio in the telephony format (8 kHz mono WAV) for a telephony provider; honours Range. The URL comes signed from the server ' +
          '(the play actions of a call); unsigned or tampered answers 403 invalid_media_signature, past its expiry 403 media_url_expired.',
      ),
    },
    async (request, reply) => {
      refuseUnsigned(request, media.check(request.params.id, request.query.exp, request.query.sig), { audio_id: request.params.id });
      const audio = await ctx.db
        .selectFrom('audios')
        .select(['id', 'name', 'format', 'status'])
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      // Signed for an audio since removed, or whose regeneration is under way.
      if (!audio || audio.status !== 'ready') throw new AppError(404, 'audio_not_found');
      return sendTelephonyCopy(ctx, request, reply, audio);
    },
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    '/media/attachments/:id',
    {
      schema: byIdSchema(
        'A file an agent sent in a conversation, for the chat’s channel (WhatsApp’s Graph API fetches it), the web chat’s widget and the console; honours Range. ' +
          'The URL comes signed in the message; unsigned or tampered answers 403 invalid_media_signature, past its expiry 403 media_url_expired.',
      ),
    },
    async (request, reply) => {
      refuseUnsigned(request, media.checkAttachment(request.params.id, request.query.exp, request.query.sig), { attachment_id: request.params.id });
      const file = await ctx.db.selectFrom('conversation_attachments').select(['name', 'content_type', 'data']).where('id', '=', request.params.id).executeTakeFirst();
      // Signed for a file whose conversation has since been removed.
      if (!file) throw new AppError(404, 'attachment_not_found');
      // Images, sound and video open in place; any other file downloads, so that nothing of it runs in the API's origin.
      const inline = /^(image|audio|video)\//.test(file.content_type);
      reply.header('content-disposition', contentDisposition(file.name, { type: inline ? 'inline' : 'attachment' }));
      // The widget shows it on the visitor's page, another site: the signature, not the origin, guards it.
      reply.header('cross-origin-resource-policy', 'cross-origin');
      return sendBytes(request, reply, file.data, file.content_type);
    },
  );

  // Spoken once per text, language and voice on each instance, then read from the data folder.
  const speechDir = path.join(ctx.config.dataDir, 'speech-cache');
  app.withTypeProvider<ZodTypeProvider>().get(
    '/media/speech.wav',
    {
      schema: {
        tags: ['media'],
        querystring: speechQuery,
        security: [],
        description:
          'A text spoken by espeak-ng in the telephony format, for a channel that has no text to speech (Asterisk plays it). The URL comes ' +
          'signed from the server (the say actions of an AGI call); unsigned or tampered answers 403 invalid_media_signature, past its expiry 403 media_url_expired.',
      },
    },
    async (request, reply) => {
      const { text, lang, voice = '', exp, sig } = request.query;
      refuseUnsigned(request, media.checkSpeech(text, lang, voice, exp, sig), { speech: true });
      const file = path.join(speechDir, `${createHash('sha256').update(`${lang}\n${voice}\n${text}`).digest('hex')}.wav`);
      const cached = await fs.readFile(file).catch(() => null);
      if (cached) return reply.type(mimeTypes.wav).send(cached);
      await fs.mkdir(speechDir, { recursive: true });
      await speaking(() => speakTelephony(text, lang, voice, file));
      return reply.type(mimeTypes.wav).send(await fs.readFile(file));
    },
  );
}
