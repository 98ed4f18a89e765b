import { describe, expect, it } from 'vitest';
import { causeOf, isDatabaseUnavailable } from './unavailable.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a socket timeout', withCode('ETIMEDOUT')],
    ['the server closing the socket', new Error('Connection terminated unexpectedly')],
    ["pg's connect timeout", new Error('Connection terminated due to connection timeout')],
    ["pg-pool's connect timeout", new Error('timeout exceeded when trying to connect')],
    ["pg's query_timeout", new Error('Query read timeout')],
    ['an administrator shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown (57P02)', withCode('57P02')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['too many connections (53300)', withCode('53300')],
    ['statement_timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['a connection exception (08006)', withCode('08006')],
    ['SQLite busy', withCode('SQLITE_BUSY', 'database is locked')],
    ['an AggregateError of refusals (IPv4 and IPv6)', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
  ])('is %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value')],
    ['a syntax error', withCode('42601')],
    ['a number out of range', withCode('22003')],
    ['a SQLite constraint', withCode('SQLITE_CONSTRAINT_UNIQUE')],
    ['a plain error', new Error('boom')],
    ["an outside server's refusal (fetch failed)", new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') })],
    ['an error with an HTTP status', Object.assign(withCode('ECONNREFUSED'), { statusCode: 502 })],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is not %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('names a cause by its code and message', () => {
    expect(causeOf(withCode('57P01', 'terminating connection'))).toBe('57P01: terminating connection');
    expect(causeOf(new Error('Query read timeout'))).toBe('Query read timeout');
  });
});
