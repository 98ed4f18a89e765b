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
  const verify = createVerifier({ key, algorithms: ['HS256'], allowedIss: ISSUER });
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
