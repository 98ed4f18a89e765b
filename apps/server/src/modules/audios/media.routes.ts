import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, forbidden } from '../../errors.ts';
import { sendTelephonyCopy } from './audios.routes.ts';
import { createMediaUrls } from './media-urls.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
// Checked by hand, so that a URL missing either part answers 403 like a tampered one, not 400.
const query = z.object({ exp: z.string().optional(), sig: z.string().optional() });

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
      schema: {
        tags: ['media'],
        params,
        querystring: query,
        security: [],
        description:
          'The audio in the telephony format (8 kHz mono WAV) for a telephony provider; honours Range. The URL comes signed from the server ' +
          '(the play actions of a call); unsigned or tampered answers 403 invalid_media_signature, past its expiry 403 media_url_expired.',
      },
    },
    async (request, reply) => {
      const check = media.check(request.params.id, request.query.exp, request.query.sig);
      if (check !== 'ok') {
        request.log.warn({ audio_id: request.params.id, check }, 'media URL refused');
        throw forbidden(check === 'expired' ? 'media_url_expired' : 'invalid_media_signature');
      }
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
}
