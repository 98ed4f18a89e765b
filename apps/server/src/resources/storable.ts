import { badRequest } from '../errors.ts';
import type { Values } from './definition.ts';

const NUL = '\u0000';

/** Where a written value holds the NUL character, which PostgreSQL text cannot store. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulPath(item, `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = nulPath(item, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Refused alike on both databases (SQLite would store it, PostgreSQL fails). */
export function assertStorable(input: Values): void {
  const path = nulPath(input, '');
  if (path !== undefined) throw badRequest('invalid_input', [{ path, message: 'text may not contain the NUL character' }]);
}
