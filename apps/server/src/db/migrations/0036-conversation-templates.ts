import type { Kysely } from 'kysely';

/**
 * Issue 39: an agent writes to a WhatsApp customer outside the 24-hour window with an approved
 * template (docs/conversations.md, "The customer service window"). The transcript keeps the
 * template's text with its values, and which template it was: JSON `{name, language}`, null for
 * every other message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversation_messages').addColumn('template', 'text').execute();
}
