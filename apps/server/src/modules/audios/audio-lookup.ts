import { maxId } from '@voxplan/contracts';
import type { AudioLookup } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { MediaUrls } from './media-urls.ts';

/**
 * The engine's AudioLookup port: where a channel fetches the audio a `play_message` plays, in
 * its telephony form (8 kHz mono, converted once and kept), as a signed URL a provider can fetch
 * without a user's token (media-urls.ts). Only a ready audio of the tenant plays; otherwise the
 * block speaks its text instead. The URL is stored with the turn's outcome, so a retried callback
 * answers the very same one.
 */
export function createAudioLookup(db: Kysely<Database>, media: MediaUrls): AudioLookup {
  return {
    async find(tenantId, audioId) {
      // The id comes from a plan document: one that cannot be a row id names no audio.
      if (![tenantId, audioId].every((id) => Number.isInteger(id) && id > 0 && id <= maxId)) return undefined;
      const audio = await db
        .selectFrom('audios')
        .select('id')
        .where('id', '=', audioId)
        .where('tenant_id', '=', tenantId)
        .where('status', '=', 'ready')
        .executeTakeFirst();
      return audio && { id: audio.id, url: media.audioUrl(audio.id) };
    },
  };
}
