import { checkedJson } from './http-json.ts';
import { BENCH_ADMIN } from './server-config.ts';

/**
 * The bearer token a bench server hands its administrator (BENCH_ADMIN, bench/lib/server-config.ts):
 * the app's access token, or the floor's token of the same kind and size (api/floor.ts).
 */
export async function signIn(serverUrl: string): Promise<string> {
  const login = await checkedJson(
    `${serverUrl}/api/v1/login`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BENCH_ADMIN) },
    'login',
  );
  const token = (login as { token?: unknown }).token;
  if (typeof token !== 'string') throw new Error('login answered no token');
  return token;
}
