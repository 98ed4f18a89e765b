/**
 * What the sign-in tests share (auth*.test.ts): the refresh cookie read from Set-Cookie, error bodies,
 * and users created through the API.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestServer } from './harness.ts';
export const COOKIE = 'voxplan_refresh';

export interface ErrorBody {
  error: { statusCode: number; name: string; message: string; code?: string; details?: { path: string; message: string }[] };
}

export const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;

export function setCookieHeaders(response: LightMyRequestResponse): string[] {
  const raw = response.headers['set-cookie'];
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
}

/** The Set-Cookie line for the refresh cookie, split into its attributes (lowercased names). */
export function refreshSetCookie(response: LightMyRequestResponse): { value: string; attributes: Map<string, string> } {
  const line = setCookieHeaders(response).find((header) => header.startsWith(`${COOKIE}=`));
  if (!line) throw new Error(`no ${COOKIE} cookie in ${JSON.stringify(response.headers['set-cookie'])}`);
  const [pair = '', ...parts] = line.split(';').map((part) => part.trim());
  const attributes = new Map<string, string>();
  for (const part of parts) {
    const [name = '', ...value] = part.split('=');
    attributes.set(name.toLowerCase(), value.join('='));
  }
  return { value: decodeURIComponent(pair.slice(COOKIE.length + 1)), attributes };
}

export async function createUser(
  server: TestServer,
  adminToken: string,
  user: { username: string; email: string; password: string; role?: 'admin' | 'user' | 'guest'; tenant_id?: number },
): Promise<number> {
  const role = user.role ?? 'admin';
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: adminToken,
    payload: {
      username: user.username,
      email: user.email,
      password: user.password,
      name: user.username,
      roles: [{ role, ...(role !== 'admin' && { tenant_id: user.tenant_id }) }],
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}
