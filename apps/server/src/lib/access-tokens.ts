import { createSigner, createVerifier, TokenError } from 'fast-jwt';

export interface AccessTokenClaims {
  userId: number;
  sessionId: string;
}

export type AccessTokenFailure = 'expired_or_forged' | 'malformed';

export class AccessTokenError extends Error {
  constructor(readonly failure: AccessTokenFailure) {
    super(failure);
  }
}

const ISSUER = 'voxplan';

/**
 * Short-lived HS256 access tokens. fast-jwt rather than jose here: jose goes through WebCrypto,
 * whose asynchronous HMAC was a quarter of the CPU of an authenticated call (bench/README.md);
 * fast-jwt signs and checks synchronously with node:crypto.
 */
export function createAccessTokens(key: Buffer, ttlSeconds: number) {
  const sign = createSigner({ key, algorithm: 'HS256', iss: ISSUER, expiresIn: ttlSeconds * 1000 });
  // The cache skips the HMAC for a token already checked; it honours exp (tokens carry iat, which
  // fast-jwt needs for that: CVE-2026-107719, fixed in 6.3.4). Keyed by the token itself: hashing
  // it cost as much as the check saved, and the token is in this process's memory anyway.
  const verify = createVerifier({ key, algorithms: ['HS256'], allowedIss: ISSUER, cache: true, cacheKeyBuilder: (token: string) => token });
  return {
    sign(claims: AccessTokenClaims): string {
      return sign({ sub: String(claims.userId), sid: claims.sessionId });
    },
    verify(token: string): AccessTokenClaims {
      let payload: { sub?: unknown; sid?: unknown };
      try {
        payload = verify(token) as { sub?: unknown; sid?: unknown };
      } catch (error) {
        const code = error instanceof TokenError ? error.code : undefined;
        const expiredOrForged = code === TokenError.codes.expired || code === TokenError.codes.invalidSignature;
        throw new AccessTokenError(expiredOrForged ? 'expired_or_forged' : 'malformed');
      }
      const userId = Number(payload.sub);
      if (typeof payload.sid !== 'string' || !Number.isInteger(userId) || userId <= 0) throw new AccessTokenError('malformed');
      return { userId, sessionId: payload.sid };
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
