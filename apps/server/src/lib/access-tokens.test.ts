import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { AccessTokenError, createAccessTokens } from './access-tokens.ts';

afterEach(() => {
  vi.useRealTimers();
});

const failureOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AccessTokenError) return error.failure;
    throw error;
  }
  return 'accepted';
};

describe('access tokens', () => {
  test('a token checked once is accepted again until it expires, then refused', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T10:00:00Z'), toFake: ['Date'] });
    const tokens = createAccessTokens(randomBytes(32), 60);
    const token = tokens.sign({ userId: 7, sessionId: 'sign-in-1' });
    const claims = { userId: 7, sessionId: 'sign-in-1', expiresAtMs: Date.parse('2026-11-23T10:01:00Z') };
    expect(tokens.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-23T10:00:59Z'));
    expect(tokens.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-23T10:01:01Z'));
    expect(failureOf(() => tokens.verify(token))).toBe('expired_or_forged');
    expect(failureOf(() => tokens.verify(token))).toBe('expired_or_forged');
  });

  test('a token altered after a good one was checked is refused, as is one signed with another key', () => {
    const tokens = createAccessTokens(randomBytes(32), 60);
    const token = tokens.sign({ userId: 7, sessionId: 'sign-in-1' });
    tokens.verify(token);
    const [header, payload, signature] = token.split('.');
    const otherPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: '1' })).toString('base64url');
    expect(failureOf(() => tokens.verify(`${header}.${otherPayload}.${signature}`))).toBe('expired_or_forged');
    const foreign = createAccessTokens(randomBytes(32), 60).sign({ userId: 7, sessionId: 'sign-in-1' });
    expect(failureOf(() => tokens.verify(foreign))).toBe('expired_or_forged');
    expect(failureOf(() => tokens.verify('not a token'))).toBe('malformed');
  });
});
