import type { Kysely } from 'kysely';

/**
 * The web chat widget (docs/channels-webchat.md): a number of provider `webchat` gains the public
 * key its `<script>` tag names and the page origins allowed to use it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('numbers')
    // Public (it is in every page that embeds the widget), hence stored as is; null: not a web chat.
    .addColumn('webchat_key', 'text')
    .execute();
  // JSON list of origins (scheme://host[:port]) whose pages may talk to the widget's API.
  await db.schema.alterTable('numbers').addColumn('webchat_origins', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  // Every request of the widget finds its number by the key.
  await db.schema.createIndex('ux_numbers__webchat_key').unique().on('numbers').column('webchat_key').execute();
}
