import { type RoleAssignment, type User, userCreateSchema, userSchema, userUpdateSchema } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { defineResource, type Row } from '../../resources/definition.ts';
import { forgetOldPassword } from './user-password.ts';

type RolesInput = z.infer<typeof userCreateSchema>['roles'];

export async function rolesByUser(db: Kysely<Database>, userIds: number[]): Promise<Map<number, RoleAssignment[]>> {
  const byUser = new Map<number, RoleAssignment[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const roles = await db
    .selectFrom('user_roles')
    .select(['id', 'role', 'tenant_id', 'user_id'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute();
  for (const role of roles) byUser.get(role.user_id)?.push(role);
  return byUser;
}

/** An admin belongs to no tenant; users and guests must name one. */
function normalizeRoles(roles: RolesInput) {
  return roles.map(({ role, tenant_id }) => {
    if (role === 'admin') return { role, tenant_id: null };
    if (tenant_id === undefined || tenant_id === null) throw badRequest('no_tenant_provided');
    return { role, tenant_id };
  });
}

export async function presentUsers(rows: Row[], db: Kysely<Database>): Promise<User[]> {
  const roles = await rolesByUser(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    created_time: row.created_time as string,
    updated_time: row.updated_time as string,
    username: row.username as string,
    email: row.email as string,
    name: row.name as string,
    roles: roles.get(row.id) ?? [],
  }));
}

export const usersResource = defineResource({
  entity: 'user',
  path: '/users',
  table: 'users',
  tenantOwned: false,
  read: 'admin',
  write: 'admin',
  fields: { id: 'integer', username: 'string', email: 'string', name: 'string', created_time: 'date', updated_time: 'date' },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: userSchema,
  createInput: userCreateSchema,
  updateInput: userUpdateSchema,
  unique: [
    { columns: ['username'], code: 'username_exists' },
    { columns: ['email'], code: 'email_exists' },
  ],
  present: presentUsers,
  readTables: ['user_roles'],
  auditTenant: () => null,
  async toValues(input) {
    const { roles: _roles, password, ...rest } = input;
    return { ...rest, ...(typeof password === 'string' && { password: await hashPassword(password) }) };
  },
  async afterWrite(id, input, { trx, scope }) {
    // An administrator setting a password (say, for someone who lost theirs) signs out whoever knew
    // the old one; one setting their own stays signed in where they are.
    if (typeof input.password === 'string') await forgetOldPassword(trx, id, scope.actor.userId === id ? scope.actor.sessionId : undefined);
    if (!input.roles) return;
    const roles = normalizeRoles(input.roles as RolesInput);
    await trx.deleteFrom('user_roles').where('user_id', '=', id).execute();
    await trx
      .insertInto('user_roles')
      .values(roles.map((role) => ({ ...role, user_id: id })))
      .execute();
  },
  async beforeDelete(rows, { scope }) {
    if (rows.some((row) => row.id === scope.actor.userId)) throw conflict('cannot_remove_self');
  },
});
