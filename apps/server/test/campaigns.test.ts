import type { Campaign, CampaignImportResult, CampaignInvalidRow, CampaignProgress, CampaignResult } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { contactImportLimits } from '../src/modules/campaigns/contacts-import.ts';
import { campaignTenant, type CampaignTenant, control, createCampaign, phoneList, uploadContacts } from './campaign-fixtures.ts';
import { createTenantUser, errorOf, q, serverForFile } from './harness.ts';

const suite = serverForFile();
let tenant: CampaignTenant;
let other: CampaignTenant;

const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  suite.server.call({ method, url, token, ...(payload !== undefined && { payload: payload as Record<string, unknown> }) });

async function contactRows(campaignId: number): Promise<number> {
  const row = await suite.server.ctx.db.selectFrom('campaign_contacts').select((eb) => eb.fn.countAll<string | number>().as('count')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('campaigns: the resource', () => {
  test('a campaign is made a draft, with the names of what it uses; guests read and never write', async () => {
    tenant = await campaignTenant(suite.server, suite.admin, 'camp-a');
    other = await campaignTenant(suite.server, suite.admin, 'camp-b');
    const range = await call(tenant.token, 'POST', '/date-ranges', { name: 'Office hours', time_zone: 'America/Sao_Paulo' });
    const campaign = await createCampaign(suite.server, tenant, { name: 'Payment reminder', date_range_id: range.json<{ id: number }>().id, calls_per_second: 2, max_concurrent: 5 });
    expect(campaign).toMatchObject({
      name: 'Payment reminder',
      plan_name: 'camp-a reminder',
      date_range_name: 'Office hours',
      status: 'draft',
      calls_per_second: 2,
      max_concurrent: 5,
      machine_detection: false,
      retries: { busy: { attempts: 2, delay_min: 10 }, no_answer: { attempts: 2, delay_min: 30 }, failed: { attempts: 1, delay_min: 15 }, machine: { attempts: 0, delay_min: 60 } },
      started_time: null,
    });
    expect(campaign.number).toMatch(/^\+551140\d{7}$/);
    const guest = await createTenantUser(suite.server, suite.admin, tenant.tenantId, 'camp-a-guest', 'guest');
    expect((await call(guest.token, 'GET', `/campaigns/${campaign.id}`)).json<Campaign>().name).toBe('Payment reminder');
    expect(errorOf(await call(guest.token, 'POST', '/campaigns', { name: 'x', plan_id: tenant.planId, number_id: tenant.numberId })).code).toBe('readonly_only');
    expect(errorOf(await call(guest.token, 'POST', `/campaigns/${campaign.id}/start`)).code).toBe('readonly_only');
    // Another tenant sees nothing of it.
    expect((await call(other.token, 'GET', `/campaigns/${campaign.id}`)).statusCode).toBe(404);
    expect((await call(other.token, 'GET', '/campaigns')).json()).toEqual([]);
    expect((await call(other.token, 'PATCH', `/campaigns/${campaign.id}`, { name: 'Taken' })).statusCode).toBe(404);
    expect((await call(other.token, 'DELETE', `/campaigns/${campaign.id}`)).statusCode).toBe(404);
    expect((await call(other.token, 'POST', `/campaigns/${campaign.id}/start`)).statusCode).toBe(404);
    expect((await call(other.token, 'GET', `/campaigns/${campaign.id}/progress`)).statusCode).toBe(404);
  });

  test('another tenant’s plan, number or date range, and a number that cannot call, are refused with nothing stored', async () => {
    const base = { name: 'Refused', plan_id: tenant.planId, number_id: tenant.numberId };
    const foreignPlan = await call(tenant.token, 'POST', '/campaigns', { ...base, plan_id: other.planId });
    expect(foreignPlan.statusCode).toBe(400);
    expect(errorOf(foreignPlan)).toMatchObject({ code: 'reference_not_found', details: [{ path: 'plan_id' }] });
    const foreignNumber = await call(tenant.token, 'POST', '/campaigns', { ...base, number_id: other.numberId });
    expect(errorOf(foreignNumber)).toMatchObject({ code: 'reference_not_found', details: [{ path: 'number_id' }] });
    const webchat = await call(tenant.token, 'POST', '/campaigns', { ...base, number_id: tenant.webchatId });
    expect(webchat.statusCode).toBe(400);
    expect(errorOf(webchat).code).toBe('number_cannot_call');
    const pace = await call(tenant.token, 'POST', '/campaigns', { ...base, calls_per_second: 0, retries: { busy: { attempts: 99, delay_min: 1 } } });
    expect(errorOf(pace).code).toBe('invalid_input');
    expect((await call(tenant.token, 'GET', `/campaigns/count?${q('where', { name: 'Refused' })}`)).json()).toEqual({ count: 0 });
  });
});

describe('campaigns: the contact list', () => {
  test('a CSV with bad lines: the good ones imported (national numbers read in the tenant’s country), every bad one listed with its line and why', async () => {
    const campaign = await createCampaign(suite.server, tenant);
    const csv = [
      'Telefone;Nome;Fuso;Valor',
      '(11) 91234-5678;Ana;America/Manaus;10,50',
      ';Sem número;;1',
      '12345;Curto;;2',
      '+14155550123;"Bob ""B""";;3',
      '+5511912345678;Ana again;;4',
      '+351912345678;Rui;Mars/Olympus;5',
      '"+5511900000001;broken',
    ].join('\r\n');
    const response = await uploadContacts(suite.server, tenant.token, campaign.id, csv, { phone: 'telefone', name: 'Nome', time_zone: 'Fuso', variables: { Valor: 'amount' }, delimiter: ';' });
    expect(response.statusCode, response.body).toBe(201);
    const result = response.json<CampaignImportResult>();
    expect(result.imported).toBe(2);
    expect(result.invalid_rows).toEqual([
      { line: 3, reason: 'phone_missing', value: '' },
      { line: 4, reason: 'phone_invalid', value: '12345' },
      { line: 6, reason: 'duplicate', value: '+5511912345678' },
      { line: 7, reason: 'time_zone_invalid', value: 'Mars/Olympus' },
      { line: 8, reason: 'malformed', value: expect.stringContaining('+5511900000001') as string },
    ]);
    const stored = (await call(tenant.token, 'GET', `/campaigns/${campaign.id}/invalid-rows?${q('filter', { where: { reason: 'duplicate' } })}`)).json<CampaignInvalidRow[]>();
    expect(stored.map((row) => row.line)).toEqual([6]);
    const results = (await call(tenant.token, 'GET', `/campaigns/${campaign.id}/results`)).json<CampaignResult[]>();
    expect(results.map((row) => [row.line, row.phone, row.name, row.time_zone, row.variables, row.state, row.attempts])).toEqual([
      [2, '+5511912345678', 'Ana', 'America/Manaus', { amount: '10,50' }, 'pending', 0],
      [5, '+14155550123', 'Bob "B"', null, { amount: '3' }, 'pending', 0],
    ]);
    // A second upload adds to the list; a number already in it is a duplicate of its own line.
    const more = (await uploadContacts(suite.server, tenant.token, campaign.id, 'phone\n+14155550123\n+14155550124\n')).json<CampaignImportResult>();
    expect(more).toEqual({ imported: 1, invalid: 1, invalid_rows: [{ line: 2, reason: 'duplicate', value: '+14155550123' }] });
    expect((await call(tenant.token, 'GET', `/campaigns/${campaign.id}/progress`)).json<CampaignProgress>()).toMatchObject({ total: 3, pending: 3, invalid_rows: 6 });
  });

  test('not a CSV, a mapped column the header lacks, a list over the limit: refused with a clear code and nothing stored', async () => {
    const campaign = await createCampaign(suite.server, tenant);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR')]);
    const image = await uploadContacts(suite.server, tenant.token, campaign.id, png, { phone: 'phone' }, 'application/octet-stream');
    expect(image.statusCode).toBe(400);
    expect(errorOf(image).code).toBe('csv_invalid');
    const latin1 = await uploadContacts(suite.server, tenant.token, campaign.id, Buffer.from('phone,name\n+5511912345678,Jo\xe3o\n', 'latin1'));
    expect(errorOf(latin1).code).toBe('csv_invalid');
    const noColumn = await uploadContacts(suite.server, tenant.token, campaign.id, phoneList(3), { phone: 'mobile' });
    expect(noColumn.statusCode).toBe(400);
    expect(errorOf(noColumn)).toMatchObject({ code: 'csv_column_not_found', message: 'The column mobile is not in the file’s header.'.replace('’', "'") });
    const rows = contactImportLimits.rows;
    contactImportLimits.rows = 1000;
    try {
      // The first 1,000 rows are written as they stream in, then the 1,001st refuses the whole list.
      const tooMany = await uploadContacts(suite.server, tenant.token, campaign.id, phoneList(1001));
      expect(tooMany.statusCode).toBe(413);
      expect(errorOf(tooMany).code).toBe('csv_too_large');
    } finally {
      contactImportLimits.rows = rows;
    }
    expect(await contactRows(campaign.id)).toBe(0);
    expect((await call(tenant.token, 'GET', `/campaigns/${campaign.id}/progress`)).json<CampaignProgress>()).toMatchObject({ total: 0, invalid_rows: 0 });
    // The same list within the limit goes in whole.
    expect((await uploadContacts(suite.server, tenant.token, campaign.id, phoneList(1001))).json<CampaignImportResult>()).toMatchObject({ imported: 1001, invalid: 0 });
  });
});

describe('campaigns: the controls', () => {
  test('start, pause, resume and cancel follow the status, refuse what cannot apply while running, and are audited', async () => {
    const campaign = await createCampaign(suite.server, tenant, { name: 'Survey' });
    expect(errorOf(await control(suite.server, tenant.token, campaign.id, 'start')).code).toBe('campaign_has_no_contacts');
    expect(errorOf(await control(suite.server, tenant.token, campaign.id, 'resume'))).toMatchObject({ statusCode: 409, code: 'campaign_status_invalid' });
    await uploadContacts(suite.server, tenant.token, campaign.id, phoneList(2));
    const started = await control(suite.server, tenant.token, campaign.id, 'start');
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json<Campaign>()).toMatchObject({ status: 'running', started_time: expect.any(String) as string });

    // While it runs: the plan cannot change, the pace can.
    const plan = await call(tenant.token, 'POST', '/visual-plans', { name: 'Another plan' });
    const replan = await call(tenant.token, 'PATCH', `/campaigns/${campaign.id}`, { plan_id: plan.json<{ id: number }>().id });
    expect(replan.statusCode).toBe(409);
    expect(errorOf(replan)).toMatchObject({ code: 'campaign_running', details: [{ path: 'plan_id' }] });
    expect((await call(tenant.token, 'PATCH', `/campaigns/${campaign.id}`, { calls_per_second: 3 })).json<Campaign>().calls_per_second).toBe(3);
    expect(errorOf(await call(tenant.token, 'DELETE', `/campaigns/${campaign.id}`)).code).toBe('campaign_running');

    expect((await control(suite.server, tenant.token, campaign.id, 'pause')).json<Campaign>().status).toBe('paused');
    expect((await control(suite.server, tenant.token, campaign.id, 'resume')).json<Campaign>().status).toBe('running');
    expect((await control(suite.server, tenant.token, campaign.id, 'cancel')).json<Campaign>()).toMatchObject({ status: 'cancelled', finished_time: expect.any(String) as string });
    expect(errorOf(await control(suite.server, tenant.token, campaign.id, 'start')).code).toBe('campaign_status_invalid');
    const late = await call(tenant.token, 'PATCH', `/campaigns/${campaign.id}`, { name: 'Too late' });
    expect(errorOf(late)).toMatchObject({ statusCode: 409, code: 'campaign_finished' });
    expect(errorOf(await uploadContacts(suite.server, tenant.token, campaign.id, phoneList(1, 50))).code).toBe('campaign_finished');

    const audit = await suite.server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'campaign', entity_id: String(campaign.id) }, order: ['id ASC'] })}`, token: suite.admin });
    const entries = audit.json<Array<{ action: string; username: string; after: { status?: string; control?: string } | null }>>();
    expect(entries.filter((entry) => entry.after?.control).map((entry) => [entry.after?.control, entry.after?.status, entry.username])).toEqual([
      ['start', 'running', 'camp-a-user'],
      ['pause', 'paused', 'camp-a-user'],
      ['resume', 'running', 'camp-a-user'],
      ['cancel', 'cancelled', 'camp-a-user'],
    ]);
  });

  test('results export as CSV, one row per contact in the list’s order', async () => {
    const campaign = await createCampaign(suite.server, tenant);
    await uploadContacts(suite.server, tenant.token, campaign.id, 'phone,name\n+5511912340001,"Silva, Ana"\n+5511912340002,=cmd\n', { phone: 'phone', name: 'name' });
    const exported = await call(tenant.token, 'GET', `/campaigns/${campaign.id}/results/export`);
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(exported.headers['x-total-count']).toBe('2');
    expect(exported.body.split('\r\n')).toEqual([
      'line,phone,name,state,last_outcome,attempts,last_session_id,last_attempt_time,message_status',
      '2,+5511912340001,"Silva, Ana",pending,,0,,,',
      "3,+5511912340002,'=cmd,pending,,0,,,",
      '',
    ]);
    expect((await call(tenant.token, 'GET', `/campaigns/${campaign.id}/results/count?${q('where', { state: 'pending' })}`)).json()).toEqual({ count: 2 });
    expect((await call(other.token, 'GET', `/campaigns/${campaign.id}/results/export`)).statusCode).toBe(404);
  });
});
