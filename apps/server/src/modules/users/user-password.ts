import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { nowIso } from '../../lib/time.ts';
import { type AuditAuthor, recordAudit } from '../audit/audit.recorder.ts';
import { userFailureKey } from '../auth/auth.service.ts';

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
    const now = nowIso();
    await trx.updateTable('users').set({ password: hashed, updated_time: now }).where('id', '=', userId).execute();
    let sessions = trx.updateTable('auth_sessions').set({ revoked_time: now }).where('user_id', '=', userId).where('revoked_time', 'is', null);
    if (options.keepSessionId) sessions = sessions.where('id', '<>', options.keepSessionId);
    await sessions.execute();
    await trx.deleteFrom('login_failures').where('key', '=', userFailureKey(userId)).execute();
    await recordAudit(trx, author, [
      { action: 'update', entity: 'user_password', entityId: userId, tenantId: null, before: null, after: { password: '••••' } },
    ]);
  });
}
