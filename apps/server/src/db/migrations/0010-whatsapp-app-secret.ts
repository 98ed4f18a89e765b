import type { Kysely } from 'kysely';

/**
 * WhatsApp Cloud API (docs/channels-whatsapp.md): a number gains its Meta app's secret, which signs
 * every delivery (`X-Hub-Signature-256`), and the messages of its conversations are kept, for the
 * 24-hour customer service window (the user's last message) and the delivery statuses of ours.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Encrypted with the master key (lib/keys.ts), as whatsapp_token; null when none was given.
  await db.schema.alterTable('numbers').addColumn('whatsapp_app_secret', 'text').execute();

  await db.schema
    .createTable('whatsapp_messages')
    // Meta's message id (wamid.…): a redelivered message or status names the same row.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('number_id', 'integer', (c) => c.notNull().references('numbers.id').onDelete('cascade'))
    // inbound (the user's) or outbound (ours)
    .addColumn('direction', 'text', (c) => c.notNull())
    // The user's WhatsApp id (wa_id: the phone number's digits).
    .addColumn('contact', 'text', (c) => c.notNull())
    // The conversation (session) the message belongs to; null for one no session took.
    .addColumn('session_id', 'text')
    // inbound: received; outbound: accepted, then sent, delivered, read or failed as Meta reports.
    .addColumn('status', 'text', (c) => c.notNull())
    // A failed message's error as Meta gave it (code and title); empty otherwise.
    .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
    // inbound: when the user sent it (Meta's timestamp), the start of the window; outbound: when Meta took it.
    .addColumn('sent_time', 'text', (c) => c.notNull())
    .addColumn('updated_time', 'text', (c) => c.notNull())
    .execute();
  // The window's question: the user's last message to this number.
  await db.schema
    .createIndex('ix_whatsapp_messages__number_id__contact__direction__sent_time')
    .on('whatsapp_messages')
    .columns(['number_id', 'contact', 'direction', 'sent_time'])
    .execute();
  await db.schema.createIndex('ix_whatsapp_messages__session_id').on('whatsapp_messages').column('session_id').execute();
}
