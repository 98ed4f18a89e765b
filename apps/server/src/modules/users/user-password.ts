import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { nowIso } from '../../lib/time.ts';
import { type AuditAuthor, recordAudit } from '../../resources/audit.recorder.ts';
import { userFailureKey } from '../auth/auth.service.ts';

/**
 * What a new password ends, however it was set (by its owner, by an administrator, from the
 * command line): every sign-in made with the old one but `keepSessionId`, and the failed sign-ins
 * that may have locked the owner out.
 */
export async function forgetOldPassword(trx: Kysely<Database>, userId: number, keepSessionId?: string): Promise<void> {
  let sessions = trx.updateTable('auth_sessions').set({ revoked_time: nowIso() }).where('user_id', '=', userId).where('revoked_time', 'is', null);
  if (keepSessionId) sessions = sessions.where('id', '<>', keepSessionId);
  await sessions.execute();
  await trx.deleteFrom('login_failures').where('key', '=', userFailureKey(userId)).execute();
}

/**
 * Gives a user a new password. Whoever knew the old one is signed out everywhere (but in the
 * sign-in that asked for the change, when there is one), the user's failed sign-ins are forgotten
 * so a locked-out owner can sign in at once, and the change is audited with the secret masked.
 */
export async function replacePassword(
  db: Kysely<Database>,
  author: AuditAuthor,
  userId: number,
  password: string,
  options: { keepSessionId?: string | undefined } = {},
): Promise<void> {
  const hashed = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password: hashed, updated_time: nowIso() }).where('id', '=', userId).execute();
    await forgetOldPassword(trx, userId, options.keepSessionId);
    await recordAudit(trx, author, [
      { action: 'update', entity: 'user_password', entityId: userId, tenantId: null, before: null, after: { password: '••••' } },
    ]);
  });
}
