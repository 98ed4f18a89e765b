/** What the campaign tests share: a tenant with a plan, a number that calls, and lists to upload. */
import type { Campaign, CampaignContactMappingInput, CampaignInput } from '@voxplan/contracts';
import { expect } from 'vitest';
import { multipartBody } from './audio-fixtures.ts';
import { createTenantMember, type TenantMember, type TestServer } from './harness.ts';

export interface CampaignTenant extends TenantMember {
  planId: number;
  numberId: number;
  webchatId: number;
}

let serial = 0;

/** A tenant (country BR, zone America/Sao_Paulo) with a user, a plan and a Twilio number. */
export async function campaignTenant(server: TestServer, admin: string, name: string): Promise<CampaignTenant> {
  const member = await createTenantMember(server, admin, name);
  await server.ctx.db.updateTable('tenants').set({ country: 'BR', time_zone: 'America/Sao_Paulo' }).where('id', '=', member.tenantId).execute();
  const plan = await server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name: `${name} reminder` } });
  expect(plan.statusCode, plan.body).toBe(201);
  const digits = String(1_000_000 + ++serial * 7919 + Math.floor(Math.random() * 900_000)).slice(-7);
  const number = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: `+551140${digits}`, provider: 'twilio' } });
  expect(number.statusCode, number.body).toBe(201);
  const webchat = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: `${name} site chat`, provider: 'webchat' } });
  expect(webchat.statusCode, webchat.body).toBe(201);
  return { ...member, planId: plan.json<{ id: number }>().id, numberId: number.json<{ id: number }>().id, webchatId: webchat.json<{ id: number }>().id };
}

export async function createCampaign(server: TestServer, tenant: CampaignTenant, payload: Partial<CampaignInput> = {}): Promise<Campaign> {
  const response = await server.call({
    method: 'POST',
    url: '/campaigns',
    token: tenant.token,
    payload: { name: `Campaign ${++serial}`, plan_id: tenant.planId, number_id: tenant.numberId, ...payload },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Campaign>();
}

/** The upload call of a contact list. */
export function uploadContacts(server: TestServer, token: string, campaignId: number, csv: string | Buffer, mapping: CampaignContactMappingInput = { phone: 'phone' }, type = 'text/csv') {
  const bytes = typeof csv === 'string' ? Buffer.from(csv) : csv;
  return server.call({ method: 'POST', url: `/campaigns/${campaignId}/contacts`, token, ...multipartBody({ mapping: JSON.stringify(mapping) }, { bytes, filename: 'contacts.csv', type }) });
}

/** A list of `count` valid Brazilian mobile numbers, one a line after a `phone,name` header. */
export function phoneList(count: number, first = 0): string {
  const lines = ['phone,name'];
  for (let index = first; index < first + count; index++) lines.push(`+55119${String(10_000_000 + index).slice(-8)},Person ${index}`);
  return `${lines.join('\n')}\n`;
}

export const control = (server: TestServer, token: string, id: number, action: string) => server.call({ method: 'POST', url: `/campaigns/${id}/${action}`, token });
