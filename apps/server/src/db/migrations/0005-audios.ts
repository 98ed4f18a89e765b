import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    // What lists show; the sound itself is in audio_data, so listing never reads it.
    await withId(db.schema.createTable('audios'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('voice', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('text', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('mime_type', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('duration_ms', 'integer')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('ix_audios__tenant_id__name').on('audios').columns(['tenant_id', 'name']).execute();

    // In the database, so that every instance serves every audio. One row per variant: the file as
    // uploaded or generated ('original') and, once asked for, its telephony copy ('telephony').
    await db.schema
      .createTable('audio_data')
      .addColumn('audio_id', 'integer', (c) => c.notNull().references('audios.id').onDelete('cascade'))
      .addColumn('variant', 'text', (c) => c.notNull())
      .addColumn('mime_type', 'text', (c) => c.notNull())
      .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addPrimaryKeyConstraint('pk_audio_data', ['audio_id', 'variant'])
      .execute();
  };
}
