import { checkedJson } from './http-json.ts';
import type { ServerChild } from './server-child.ts';

/** A set-up call to a bench server's API (`/api/v1` + `url`), as a user with `token`, in `tenantId`'s name; throws on an error answer. */
export async function apiCall(server: ServerChild, method: string, url: string, token: string | null, body?: unknown, tenantId?: number): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    ...(body !== undefined && { 'content-type': 'application/json' }),
    ...(token && { authorization: `Bearer ${token}` }),
    ...(tenantId !== undefined && { 'x-tenant-id': String(tenantId) }),
  };
  return (await checkedJson(`${server.url}/api/v1${url}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) }, `${method} ${url}`)) as Record<string, unknown>;
}
