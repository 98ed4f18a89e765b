import { audioSchema, audioUpdateSchema } from '@voxplan/contracts';
import { serverError } from '../../errors.ts';
import { assertNotReferenced } from '../visual-plans/plan-references.ts';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';

/**
 * Audio metadata through the generic layer (list, count, get, rename, remove). Audios are made by
 * their own routes (audios.routes.ts: upload and text to speech), not by the generic POST.
 */
export const audiosResource = defineResource({
  entity: 'audio',
  path: '/audios',
  table: 'audios',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    source: 'string',
    language: 'string',
    voice: 'string',
    text: 'string',
    format: 'string',
    mime_type: 'string',
    size: 'integer',
    duration_ms: 'integer',
    status: 'string',
    progress: 'integer',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: audioSchema,
  updateInput: audioUpdateSchema,
  notFoundCode: 'audio_not_found',
  inUseCode: 'audio_in_use',
  async beforeDelete(rows, write) {
    // No plan may still play one of these audios; checked before anything is removed.
    await assertNotReferenced(write, 'audio', rows, 'audio_in_use');
    try {
      await write.trx
        .deleteFrom('audio_data')
        .where(
          'audio_id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    } catch (error) {
      // The transaction is rolled back: the audio and its sound stay as they were.
      throw serverError('error_deleting_file', error);
    }
  },
});
