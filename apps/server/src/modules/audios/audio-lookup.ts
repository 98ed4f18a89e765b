import { maxId } from '@voxplan/contracts';
import type { AudioLookup } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * The engine's AudioLookup port: where a channel fetches the audio a `play_message` plays, in
 * its telephony form (8 kHz mono, converted once and kept). Only a ready audio of the tenant
 * plays; otherwise the block speaks its text instead.
 */
export function createAudioLookup(db: Kysely<Database>, publicUrl: string): AudioLookup {
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
      return audio && { id: audio.id, url: `${publicUrl}/api/v1/audios/${audio.id}/file?format=telephony` };
    },
  };
}
