import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.ts';

// Migrations see an untyped database: they describe the schema the typed one is checked against.
type AnyDb = Kysely<unknown>;

export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export function up(dialect: DialectName) {
  return async (db: AnyDb): Promise<void> => {
    await withId(db.schema.createTable('tenants'), dialect)
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('integrations', 'text')
      .execute();
    await db.schema.createIndex('ux_tenants__name').unique().on('tenants').column('name').execute();

    await withId(db.schema.createTable('users'), dialect)
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_users__username').unique().on('users').column('username').execute();
    await db.schema.createIndex('ux_users__email').unique().on('users').column('email').execute();

    await withId(db.schema.createTable('user_roles'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'integer', (c) => c.references('tenants.id'))
      .execute();
    await db.schema.createIndex('ix_user_roles__user_id').on('user_roles').column('user_id').execute();
    await db.schema.createIndex('ix_user_roles__tenant_id').on('user_roles').column('tenant_id').execute();

    await db.schema
      .createTable('auth_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('expires_time', 'text', (c) => c.notNull())
      .addColumn('revoked_time', 'text')
      .addColumn('source_ip', 'text')
      .addColumn('user_agent', 'text')
      .execute();
    await db.schema.createIndex('ix_auth_sessions__user_id').on('auth_sessions').column('user_id').execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('auth_sessions.id').onDelete('cascade'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('used_time', 'text')
      .execute();
    await db.schema.createIndex('ix_refresh_tokens__session_id').on('refresh_tokens').column('session_id').execute();

    await withId(db.schema.createTable('login_failures'), dialect)
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('ix_login_failures__key_time')
      .on('login_failures')
      .columns(['key', 'created_time'])
      .execute();

    await withId(db.schema.createTable('api_keys'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('last_used_time', 'text')
      .execute();
    await db.schema.createIndex('ix_api_keys__user_id').on('api_keys').column('user_id').execute();

    await withId(db.schema.createTable('configurations'), dialect)
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_configurations__name').unique().on('configurations').column('name').execute();

    await withId(db.schema.createTable('audit_log'), dialect)
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer')
      .addColumn('username', 'text')
      .addColumn('tenant_id', 'integer')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('entity', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text')
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .addColumn('source_ip', 'text')
      .execute();
    await db.schema.createIndex('ix_audit_log__created_time').on('audit_log').column('created_time').execute();
    await db.schema.createIndex('ix_audit_log__tenant_id').on('audit_log').column('tenant_id').execute();

    await withId(db.schema.createTable('destinations'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('uri', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('ux_destinations__tenant_id__uri')
      .unique()
      .on('destinations')
      .columns(['tenant_id', 'uri'])
      .execute();
  };
}
