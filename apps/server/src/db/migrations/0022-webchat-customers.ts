import { type Kysely, sql } from 'kysely';

/**
 * Who the customer of a chat is (issue 36, docs/channels-webchat.md "Who the visitor is",
 * docs/conversations.md): the session keeps what its channel said of them (WhatsApp's profile name,
 * the web chat's pre-chat form, the page's address, the site's signed-in user). A web chat number
 * is named rather than numbered, asks its pre-chat fields, and may hold the key that signs its
 * site's users.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // JSON { name, email, page_url, external_id, verified }; null: the channel said nothing of them.
  await db.schema.alterTable('sessions').addColumn('customer', 'text').execute();
  // JSON list of the fields the widget asks before the first message ('name', 'email'); empty: none.
  await db.schema.alterTable('numbers').addColumn('webchat_prechat', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  // The key that signs the site's user ids (HMAC-SHA256), encrypted with the master key; null: none yet.
  await db.schema.alterTable('numbers').addColumn('webchat_identity_secret', 'text').execute();
  // A phone number is the system's (a call finds one tenant by it); a web chat's name is its tenant's.
  await db.schema.dropIndex('ux_numbers__number').execute();
  await db.schema.createIndex('ux_numbers__number').unique().on('numbers').column('number').where(sql.ref('provider'), '<>', 'webchat').execute();
  await db.schema
    .createIndex('ux_numbers__tenant_id__number')
    .unique()
    .on('numbers')
    .columns(['tenant_id', 'number'])
    .where(sql.ref('provider'), '=', 'webchat')
    .execute();
}
