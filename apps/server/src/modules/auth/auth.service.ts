import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { AppError, unauthorized } from '../../errors.ts';
import { decoyHash, verifyPassword } from '../../lib/passwords.ts';
import { randomToken, sha256 } from '../../lib/keys.ts';
import { isoAfter, nowIso } from '../../lib/time.ts';

export interface Issued {
  accessToken: string;
  refreshToken: string;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
}

/** Sign-in, refresh-token rotation with reuse detection, and sign-out. */
/**
 * A browser that reloads, or two tabs refreshing at once, can lose the answer of a rotation: the
 * server spent the token, the browser never stored its successor and presents the spent one again.
 * That is no theft when it comes within a few seconds and nothing descended from the spent token
 * has been used since (its successor is still unspent); only the last rotation is retried so.
 * The same grace as identity providers give (Okta 30 s, Cognito up to 60 s, Connect2id 5 s).
 */
export const REFRESH_RETRY_GRACE_MS = 30_000;

async function isRetryOfLastRotation(trx: Kysely<Database>, spent: { id: string; session_id: string }, now: string): Promise<boolean> {
  // Read again: a concurrent rotation may have spent it after this request first looked.
  const usedTime = (await trx.selectFrom('refresh_tokens').select('used_time').where('id', '=', spent.id).executeTakeFirst())?.used_time;
  if (!usedTime || Date.parse(now) - Date.parse(usedTime) > REFRESH_RETRY_GRACE_MS) return false;
  const usedSince = await trx
    .selectFrom('refresh_tokens')
    .select('id')
    .where('session_id', '=', spent.session_id)
    .where('created_time', '>=', usedTime)
    .where('used_time', 'is not', null)
    .executeTakeFirst();
  return usedSince === undefined;
}

/** The key a known user's failed sign-ins are counted under. */
export const userFailureKey = (userId: number): string => `user:${userId}`;

export class AuthService {
  constructor(private readonly ctx: AppContext) {}

  /**
   * Failures of a known account are counted against the account, so that alternating its username
   * and its e-mail does not double the attempts; unknown names are counted by the name typed.
   */
  private failureKeys(user: { id: number } | undefined, identifier: string, ip: string) {
    return { user: user ? userFailureKey(user.id) : `name:${identifier.toLowerCase()}`, address: `ip:${ip}` };
  }

  private async assertNotThrottled(keys: { user: string; address: string }): Promise<void> {
    const { config, db } = this.ctx;
    const since = isoAfter(-config.loginFailureWindowSeconds);
    const counts = await db
      .selectFrom('login_failures')
      .select(['key', (eb) => eb.fn.countAll().as('failures')])
      .where('key', 'in', [keys.user, keys.address])
      .where('created_time', '>', since)
      .groupBy('key')
      .execute();
    const failuresOf = (key: string) => Number(counts.find((row) => row.key === key)?.failures ?? 0);
    if (failuresOf(keys.user) >= config.loginMaxFailuresPerUser || failuresOf(keys.address) >= config.loginMaxFailuresPerAddress) {
      throw new AppError(429, 'too_many_attempts');
    }
  }

  /** The account a sign-in names: by username, else by e-mail (a username may look like an e-mail). */
  private async findAccount(identifier: string): Promise<{ id: number; password: string } | undefined> {
    const candidates = await this.ctx.db
      .selectFrom('users')
      .select(['id', 'username', 'password'])
      .where((eb) => eb.or([eb('username', '=', identifier), eb('email', '=', identifier.toLowerCase())]))
      .orderBy('id')
      .limit(2)
      .execute();
    return candidates.find((candidate) => candidate.username === identifier) ?? candidates[0];
  }

  async login(username: string, password: string, client: ClientInfo): Promise<Issued> {
    const { db } = this.ctx;
    const user = await this.findAccount(username);
    const keys = this.failureKeys(user, username, client.ip);
    await this.assertNotThrottled(keys);
    // The decoy keeps the time of an unknown user equal to that of a wrong password.
    const matches = await verifyPassword(user?.password ?? (await decoyHash), password);
    if (!user || !matches) {
      const created_time = nowIso();
      await db
        .insertInto('login_failures')
        .values([
          { key: keys.user, created_time },
          { key: keys.address, created_time },
        ])
        .execute();
      // Counts older than the window no longer matter; dropping them keeps the table small.
      await db.deleteFrom('login_failures').where('created_time', '<=', isoAfter(-this.ctx.config.loginFailureWindowSeconds)).execute();
      throw unauthorized('invalid_credentials');
    }
    await db.deleteFrom('login_failures').where('key', '=', keys.user).execute();
    const sessionId = randomToken(18);
    const refreshToken = randomToken();
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('auth_sessions')
        .values({
          id: sessionId,
          user_id: user.id,
          created_time: now,
          expires_time: isoAfter(this.ctx.config.refreshTokenTtlSeconds),
          revoked_time: null,
          source_ip: client.ip,
          user_agent: client.userAgent?.slice(0, 300) ?? null,
        })
        .execute();
      await trx.insertInto('refresh_tokens').values({ id: sha256(refreshToken), session_id: sessionId, created_time: now, used_time: null }).execute();
    });
    return { accessToken: await this.issueAccessToken(user.id, sessionId), refreshToken };
  }

  private async issueAccessToken(userId: number, sessionId: string): Promise<string> {
    try {
      return this.ctx.tokens.sign({ userId, sessionId });
    } catch {
      throw new AppError(500, 'generating_token_error');
    }
  }

  /**
   * Trades a refresh token for a new pair. A token that was already traded means it leaked (or a
   * client misbehaved): the whole sign-in it descends from is revoked, unless it is a retry of the
   * last rotation (see `isRetryOfLastRotation`).
   */
  async refresh(refreshToken: string | undefined): Promise<Issued> {
    if (!refreshToken) throw unauthorized('refresh_token_not_found');
    const { db } = this.ctx;
    const tokenId = sha256(refreshToken);
    const outcome = await db.transaction().execute(async (trx) => {
      const found = await trx
        .selectFrom('refresh_tokens as t')
        .innerJoin('auth_sessions as s', 's.id', 't.session_id')
        .select(['t.id', 't.used_time', 's.id as session_id', 's.user_id', 's.revoked_time', 's.expires_time'])
        .where('t.id', '=', tokenId)
        .executeTakeFirst();
      if (!found || found.revoked_time !== null || found.expires_time <= nowIso()) return undefined;
      const now = nowIso();
      const claimed = await trx
        .updateTable('refresh_tokens')
        .set({ used_time: now })
        .where('id', '=', tokenId)
        .where('used_time', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) {
        if (!(await isRetryOfLastRotation(trx, found, now))) {
          await trx.updateTable('auth_sessions').set({ revoked_time: now }).where('id', '=', found.session_id).execute();
          return 'reused' as const;
        }
        // The answer that carried its successor never reached the browser: that successor is dropped for a new one.
        await trx.deleteFrom('refresh_tokens').where('session_id', '=', found.session_id).where('used_time', 'is', null).execute();
      }
      const next = randomToken();
      await trx.insertInto('refresh_tokens').values({ id: sha256(next), session_id: found.session_id, created_time: now, used_time: null }).execute();
      return { userId: found.user_id, sessionId: found.session_id, refreshToken: next };
    });
    if (outcome === undefined || outcome === 'reused') throw unauthorized('refresh_token_not_found');
    return { accessToken: await this.issueAccessToken(outcome.userId, outcome.sessionId), refreshToken: outcome.refreshToken };
  }

  /** Ends the sign-in a refresh token or an access token's session belongs to. */
  async logout(refreshToken: string | undefined, sessionId: string | undefined): Promise<void> {
    const { db } = this.ctx;
    let target = sessionId;
    if (!target && refreshToken) {
      const token = await db.selectFrom('refresh_tokens').select('session_id').where('id', '=', sha256(refreshToken)).executeTakeFirst();
      target = token?.session_id;
    }
    if (!target) return;
    await db.updateTable('auth_sessions').set({ revoked_time: nowIso() }).where('id', '=', target).where('revoked_time', 'is', null).execute();
  }
}
