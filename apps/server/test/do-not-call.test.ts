import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nowIso } from '../src/lib/time.ts';
import { doNotCallAmong, isOnDoNotCall } from '../src/modules/do-not-call/do-not-call.service.ts';
import { serverDialingDefaults, tenantDialingDefaults } from '../src/modules/tenants/tenant-dialing.ts';
import { startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
let admin: string;
let tenantA: number;
let tenantB: number;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  const makeTenant = async (name: string) => {
    const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: number }>().id;
  };
  tenantA = await makeTenant('dnc-a');
  tenantB = await makeTenant('dnc-b');
});
afterAll(() => server.close());

describe('do-not-call: what a dial asks', () => {
  test('isOnDoNotCall and doNotCallAmong answer only the tenant’s own numbers', async () => {
    const now = nowIso();
    await server.ctx.db
      .insertInto('do_not_call')
      .values([
        { tenant_id: tenantA, number: '+5511912345678', created_time: now, updated_time: now },
        { tenant_id: tenantB, number: '+14155550123', created_time: now, updated_time: now },
      ])
      .execute();
    expect(await isOnDoNotCall(server.ctx.db, tenantA, '+5511912345678')).toBe(true);
    expect(await isOnDoNotCall(server.ctx.db, tenantA, '+14155550123')).toBe(false);
    expect(await isOnDoNotCall(server.ctx.db, tenantB, '+14155550123')).toBe(true);

    // More numbers than one look-up takes, the listed one among the last.
    const batch = Array.from({ length: 1200 }, (_, index) => `+5511900${String(index).padStart(6, '0')}`);
    batch.push('+5511912345678', '+14155550123', '+5511912345678');
    expect(await doNotCallAmong(server.ctx.db, tenantA, batch)).toEqual(new Set(['+5511912345678']));
    expect(await doNotCallAmong(server.ctx.db, tenantB, batch)).toEqual(new Set(['+14155550123']));
    expect(await doNotCallAmong(server.ctx.db, tenantA, [])).toEqual(new Set());
  });

  test('tenantDialingDefaults: the tenant’s own, else the server’s language region and zone', async () => {
    const server_ = serverDialingDefaults('pt-BR');
    expect(server_.country).toBe('BR');
    expect(serverDialingDefaults('en-US').country).toBe('US');
    expect(await tenantDialingDefaults(server.ctx.db, tenantA, server_)).toEqual({ country: 'BR', time_zone: server_.time_zone });
    await server.ctx.db.updateTable('tenants').set({ country: 'PT', time_zone: 'Europe/Lisbon' }).where('id', '=', tenantA).execute();
    expect(await tenantDialingDefaults(server.ctx.db, tenantA, server_)).toEqual({ country: 'PT', time_zone: 'Europe/Lisbon' });
  });
});
