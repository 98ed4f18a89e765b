import type { AddressInfo } from 'node:net';
import si from 'systeminformation';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import type { SystemInfo } from '@voxplan/contracts';
import { cachedReading } from '../src/modules/system/system-info.routes.ts';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';

/**
 * Issue 13, item 2: 50 concurrent GET /system/info by a guest each ran the host commands of
 * systeminformation and held /health for 5.5 s. One reading now serves everybody for a few
 * seconds, two never run at once, and the hardware id and address are an administrator's.
 */

let server: TestServer;
let baseUrl: string;
let admin: string;
let guest: TenantMember;

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  admin = await server.login();
  guest = await createTenantMember(server, admin, 'lookers', 'guest');
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

const get = (path: string, token?: string) => fetch(`${baseUrl}/api/v1${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const infoOf = async (response: Response) => (await response.json()) as SystemInfo;

test('50 concurrent calls make at most one reading of the host, and /health is answered while it runs', async () => {
  // The reading is held until /health has answered, so the calls overlap it for certain.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const realUuid = si.uuid.bind(si);
  const uuid = vi.spyOn(si, 'uuid').mockImplementation(async () => {
    await held;
    return realUuid();
  });
  const cpu = vi.spyOn(si, 'cpu');

  const calls = Array.from({ length: 50 }, () => get('/system/info', guest.token));
  await vi.waitFor(() => expect(uuid).toHaveBeenCalled());
  const health = await get('/health');
  expect(health.status).toBe(200);
  release();
  const answers = await Promise.all(calls);
  expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
  expect(uuid).toHaveBeenCalledTimes(1);
  expect(cpu).toHaveBeenCalledTimes(1);

  // Within the cache's lifetime, later calls read nothing either; the server time is still now.
  const later = await get('/system/info', admin);
  expect(Date.parse((await infoOf(later)).server_time)).toBeGreaterThan(Date.now() - 60_000);
  expect(uuid).toHaveBeenCalledTimes(1);
});

test('an administrator sees the hardware id and the address; a guest and a user do not', async () => {
  const adminView = await infoOf(await get('/system/info', admin));
  expect(adminView.hardware_id).toBe((await si.uuid()).hardware || (await si.uuid()).os || '—');
  expect(adminView.ip_address).toEqual(expect.any(String));
  expect(adminView.ip_address).not.toBe('');

  const user = await createTenantMember(server, admin, 'workers');
  for (const token of [guest.token, user.token]) {
    const response = await get('/system/info', token);
    expect(response.status).toBe(200);
    const view = await infoOf(response);
    expect(view).toMatchObject({ hardware_id: null, ip_address: null, processor: adminView.processor, ram_gib: adminView.ram_gib });
  }
});

test('a reading is kept for its lifetime, shared while it runs, and a failed one is not kept', async () => {
  let clock = 0;
  let readings = 0;
  let fail = false;
  const read = cachedReading(
    async () => {
      readings++;
      if (fail) throw new Error('host command failed');
      return readings;
    },
    1_000,
    () => clock,
  );
  expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
  clock = 999;
  expect(await read()).toBe(1);
  clock = 1_000;
  fail = true;
  await expect(read()).rejects.toThrow('host command failed');
  fail = false;
  expect(await read()).toBe(3);
  expect(readings).toBe(3);
});
