import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Conversations (issue 30, docs/conversations.md): a chat destination may be a queue of the
 * tenant's users instead of a URL, and a chat that reaches it is held by a person. The session stays
 * parked at its destination block meanwhile; what the customer and the agent say is kept here.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('destinations').addColumn('chat_target', 'text').execute();
    await sql`update destinations set chat_target = 'url' where kind = 'chat'`.execute(db);
    // A queue has no URI: the index keeps URLs and SIP URIs unique, not the empty ones of queues.
    await db.schema.dropIndex('ux_destinations__tenant_id__uri').execute();
    await db.schema
      .createIndex('ux_destinations__tenant_id__uri')
      .unique()
      .on('destinations')
      .columns(['tenant_id', 'uri'])
      .where(sql.ref('uri'), '<>', '')
      .execute();

    await db.schema
      .createTable('destination_agents')
      .addColumn('destination_id', 'integer', (c) => c.notNull().references('destinations.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('pk_destination_agents', ['destination_id', 'user_id'])
      .execute();
    await db.schema.createIndex('ix_destination_agents__user_id').on('destination_agents').column('user_id').execute();

    await db.schema
      .createTable('agent_presence')
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('pk_agent_presence', ['user_id', 'tenant_id'])
      .execute();

    await withId(db.schema.createTable('conversations'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('session_id', 'text', (c) => c.notNull())
      // The queue (or, for an outside desk, the URL destination); kept when the destination is removed.
      .addColumn('destination_id', 'integer')
      .addColumn('agent_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text')
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('caller', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('taken_at', 'text')
      .addColumn('closed_at', 'text')
      .addColumn('last_message_at', 'text')
      .addColumn('unread_for_agent', 'integer', (c) => c.notNull().defaultTo(0))
      // When a waiting conversation nobody took becomes `no_answer` (the block's timeout_s); null once taken.
      .addColumn('deadline_at', 'text')
      // The revision of the turn that reached the destination block: the event id of the turn that resumes the plan.
      .addColumn('handoff_revision', 'integer', (c) => c.notNull())
      // Outside desk only: SHA-256 of the conversation's reply token.
      .addColumn('reply_token_hash', 'text')
      .execute();
    // One conversation at a time holds a session: the customer's messages go to it.
    await db.schema
      .createIndex('ux_conversations__session_id')
      .unique()
      .on('conversations')
      .column('session_id')
      .where(sql.ref('status'), '<>', 'closed')
      .execute();
    await db.schema.createIndex('ix_conversations__tenant_id__status__created_at').on('conversations').columns(['tenant_id', 'status', 'created_at']).execute();
    await db.schema.createIndex('ix_conversations__session_id__all').on('conversations').column('session_id').execute();
    await db.schema.createIndex('ix_conversations__deadline_at').on('conversations').column('deadline_at').execute();

    await withId(db.schema.createTable('conversation_messages'), dialect)
      .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
      .addColumn('author', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('attachment', 'text')
      // The channel's id of a customer's message (the widget's, Meta's): a redelivery is stored once.
      .addColumn('external_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_conversation_messages__conversation_id__external_id').unique().on('conversation_messages').columns(['conversation_id', 'external_id']).execute();
    await db.schema.createIndex('ix_conversation_messages__conversation_id').on('conversation_messages').columns(['conversation_id', 'id']).execute();
  };
}
