import { createSigner, createVerifier, TokenError } from 'fast-jwt';

export interface AccessTokenClaims {
  userId: number;
  sessionId: string;
  /** When the token expires (ms since the epoch): a long-lived connection opened with it ends then. */
  expiresAtMs: number;
}

/** Why a long-lived connection's credentials ended: its token's time is up, or its sign-in no longer holds. */
export type SignInEnd = 'token_expired' | 'sign_in_ended';

export type AccessTokenFailure = 'expired_or_forged' | 'malformed';

export class AccessTokenError extends Error {
  constructor(readonly failure: AccessTokenFailure) {
    super(failure);
  }
}

const ISSUER = 'voxplan';
/** Tokens whose check is remembered; past this many the oldest is forgotten. */
const CHECKED_TOKENS = 10_000;

/**
 * Short-lived HS256 access tokens. fast-jwt rather than jose here: jose goes through WebCrypto,
 * whose asynchronous HMAC was a quarter of the CPU of an authenticated call (bench/README.md);
 * fast-jwt signs and checks synchronously with node:crypto.
 */
export function createAccessTokens(key: Buffer, ttlSeconds: number) {
  const sign = createSigner({ key, algorithm: 'HS256', iss: ISSUER, expiresIn: ttlSeconds * 1000 });
  const verify = createVerifier({ key, algorithms: ['HS256'], allowedIss: ISSUER });
  // Every authenticated call checks its token; the claims of a token already checked are kept
  // until it expires, which skips the HMAC. Keyed by the token itself, so no two tokens can share
  // an entry, and hashing it would cost as much as the check saves. Our own map rather than
  // fast-jwt's cache, whose custom-key option warns on every start.
  const checked = new Map<string, { claims: AccessTokenClaims; expiresAtMs: number }>();

  function check(token: string): AccessTokenClaims {
    let payload: { sub?: unknown; sid?: unknown; exp?: unknown };
    try {
      payload = verify(token) as typeof payload;
    } catch (error) {
      const code = error instanceof TokenError ? error.code : undefined;
      const expiredOrForged = code === TokenError.codes.expired || code === TokenError.codes.invalidSignature;
      throw new AccessTokenError(expiredOrForged ? 'expired_or_forged' : 'malformed');
    }
    const userId = Number(payload.sub);
    if (typeof payload.sid !== 'string' || !Number.isInteger(userId) || userId <= 0 || typeof payload.exp !== 'number') throw new AccessTokenError('malformed');
    const claims = { userId, sessionId: payload.sid, expiresAtMs: payload.exp * 1000 };
    if (checked.size >= CHECKED_TOKENS) checked.delete(checked.keys().next().value!);
    checked.set(token, { claims, expiresAtMs: claims.expiresAtMs });
    return claims;
  }

  return {
    sign(claims: Omit<AccessTokenClaims, 'expiresAtMs'>): string {
      return sign({ sub: String(claims.userId), sid: claims.sessionId });
    },
    verify(token: string): AccessTokenClaims {
      const known = checked.get(token);
      if (known) {
        if (Date.now() < known.expiresAtMs) return known.claims;
        checked.delete(token);
        throw new AccessTokenError('expired_or_forged');
      }
      return check(token);
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
