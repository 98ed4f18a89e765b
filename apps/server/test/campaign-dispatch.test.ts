/**
 * The dispatcher against a stand-in for the outbound core that stores calls as the core does
 * (`outbound_calls`, before the provider has them) and ends them when a test says: pacing and
 * calls at once counted on a clock the test moves, the schedule in each contact's zone, retries by
 * outcome, the do-not-call list, the licence, two dispatchers on one database, and what an
 * instance that died left behind.
 */
import { randomUUID } from 'node:crypto';
import type { CampaignProgress, CampaignResult } from '@voxplan/contracts';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../src/context.ts';
import { AppError } from '../src/errors.ts';
import type { CampaignCallOutcome, CampaignCallRequest, CampaignCalls } from '../src/modules/campaigns/campaign-calls.ts';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../src/modules/campaigns/dispatcher.ts';
import { campaignTenant, type CampaignTenant, control, createCampaign, phoneList, uploadContacts } from './campaign-fixtures.ts';
import { serverForFile } from './harness.ts';

/**
 * The dispatcher's clock in these tests is a day of a week to come: a contact is due from its
 * import, on the real clock, so an instant fixed in the calendar would find every contact not yet
 * due once the real clock passed it. `weekday(0, '13:00')`: the Sunday, 13:00 UTC, of the first
 * week that starts after now; 1 is its Monday … 7 the Sunday after.
 */
const DAY_MS = 86_400_000;
const comingWeek = (() => {
  const inAWeek = new Date(Date.now() + 7 * DAY_MS);
  return Date.UTC(inAWeek.getUTCFullYear(), inAWeek.getUTCMonth(), inAWeek.getUTCDate()) - inAWeek.getUTCDay() * DAY_MS;
})();
function weekday(day: number, utcTime: string): string {
  const [hours, minutes] = utcTime.split(':').map(Number);
  return new Date(comingWeek + day * DAY_MS + (hours! * 60 + minutes!) * 60_000).toISOString();
}

const suite = serverForFile();
let tenant: CampaignTenant;

beforeAll(async () => {
  tenant = await campaignTenant(suite.server, suite.admin, 'dispatch');
});
// Each test's campaigns end with it: the next test's dispatcher sees only its own.
afterEach(async () => {
  await suite.server.ctx.db.updateTable('campaigns').set({ status: 'cancelled' }).where('status', 'in', ['running', 'paused']).execute();
  await suite.server.ctx.db.updateTable('campaign_contacts').set({ state: 'done' }).where('state', '=', 'in_progress').execute();
});

interface FakeCore extends CampaignCalls {
  placed: CampaignCallRequest[];
  /** Numbers in a call now, and the most ever at once for one number. */
  live: Map<string, string>;
  end(to: string, dialStatus: CampaignCallOutcome['dial_status'], answeredBy?: CampaignCallOutcome['answered_by'], tell?: boolean): Promise<void>;
  refuse?: (request: CampaignCallRequest) => AppError | undefined;
  pace?: number;
}

/** Stores each call as the core does before dialling; `end` ends it and tells the listeners (unless told not to). */
function fakeCore(ctx: AppContext): FakeCore {
  const listeners: Array<(outcome: CampaignCallOutcome) => Promise<void>> = [];
  const core: FakeCore = {
    placed: [],
    live: new Map(),
    async place(request) {
      const refusal = core.refuse?.(request);
      if (refusal) throw refusal;
      if (core.live.has(request.to)) throw new Error(`${request.to} called twice at once`);
      const session_id = randomUUID();
      const now = new Date().toISOString();
      await ctx.db
        .insertInto('outbound_calls')
        .values({ session_id, tenant_id: request.tenant_id, number_id: 0, provider: 'twilio', plan_id: request.plan_id, plan_version: 1, plan_name: '', caller: request.from, called: request.to, variables: JSON.stringify(request.variables), machine_detection: request.machine_detection ? 1 : 0, ring_timeout_s: 30, campaign_id: request.campaign_id, state: 'dialing', created_time: now, updated_time: now })
        .execute();
      core.placed.push(request);
      core.live.set(request.to, session_id);
      return { session_id };
    },
    onOutcome: (listener) => void listeners.push(listener),
    async end(to, dialStatus, answeredBy = null, tell = true) {
      const session_id = core.live.get(to);
      if (!session_id) throw new Error(`no call to ${to} in progress`);
      core.live.delete(to);
      await ctx.db.updateTable('outbound_calls').set({ state: 'ended', dial_status: dialStatus, answered_by: answeredBy, ended_time: new Date().toISOString() }).where('session_id', '=', session_id).execute();
      const row = await ctx.db.selectFrom('outbound_calls').select(['campaign_id', 'tenant_id']).where('session_id', '=', session_id).executeTakeFirstOrThrow();
      if (tell) for (const listener of listeners) await listener({ session_id, tenant_id: row.tenant_id, campaign_id: row.campaign_id, dial_status: dialStatus, answered_by: answeredBy, ended: true });
    },
    findCall: () => Promise.resolve(null),
    async findCallTo(campaignId, to, since) {
      const row = await ctx.db.selectFrom('outbound_calls').select(['session_id', 'state', 'dial_status', 'answered_by']).where('campaign_id', '=', campaignId).where('called', '=', to).where('created_time', '>=', since).executeTakeFirst();
      return row ? { session_id: row.session_id, ended: row.state === 'ended', dial_status: row.dial_status as never, answered_by: row.answered_by as never } : null;
    },
    callsPerSecond: () => core.pace,
  };
  return core;
}

/** A clock the test moves, and a dispatcher that places each claimed call at once. */
function dispatcherOn(core: FakeCore, startIso: string, options: Partial<DispatcherOptions> & { ctx?: AppContext } = {}) {
  let nowMs = Date.parse(startIso);
  const dispatcher: Dispatcher = createDispatcher(options.ctx ?? suite.server.ctx, { calls: core, now: () => nowMs, schedule: (_at, run) => run(), intervalMs: 100, ...options });
  return {
    dispatcher,
    advance: (ms: number) => (nowMs += ms),
    /** One pass, and the calls it claimed placed. */
    async pass() {
      const claimed = await dispatcher.pass();
      await dispatcher.placed();
      return claimed;
    },
  };
}

async function runningCampaign(payload: Parameters<typeof createCampaign>[2], csv: string, mapping?: Parameters<typeof uploadContacts>[4]) {
  const campaign = await createCampaign(suite.server, tenant, payload);
  const upload = await uploadContacts(suite.server, tenant.token, campaign.id, csv, mapping);
  expect(upload.statusCode, upload.body).toBe(201);
  expect((await control(suite.server, tenant.token, campaign.id, 'start')).statusCode).toBe(200);
  return campaign;
}

const progressOf = async (id: number) => (await suite.server.call({ method: 'GET', url: `/campaigns/${id}/progress`, token: tenant.token })).json<CampaignProgress>();
const resultsOf = async (id: number) => (await suite.server.call({ method: 'GET', url: `/campaigns/${id}/results`, token: tenant.token })).json<CampaignResult[]>();

describe('dispatch', () => {
  test('pacing: calls a second over a measured span, at most N at once, never above the provider’s pace', async () => {
    const core = fakeCore(suite.server.ctx);
    const campaign = await runningCampaign({ calls_per_second: 2, max_concurrent: 3 }, phoneList(20));
    const run = dispatcherOn(core, weekday(2, '12:00'));
    // 10 s of passes every 100 ms, every call ending right after it starts: 2 a second.
    for (let tick = 0; tick < 100; tick++) {
      await run.pass();
      for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
      run.advance(100);
    }
    expect(core.placed).toHaveLength(20);
    // Concurrency: calls that do not end hold their places.
    const held = await runningCampaign({ calls_per_second: 50, max_concurrent: 3 }, phoneList(10, 100));
    for (let tick = 0; tick < 20; tick++) {
      await run.pass();
      run.advance(100);
    }
    expect(core.placed.filter((call) => call.campaign_id === held.id)).toHaveLength(3);
    expect((await progressOf(held.id)).in_progress).toBe(3);
    await core.end(core.placed.find((call) => call.campaign_id === held.id)!.to, 'busy');
    await run.pass();
    expect(core.placed.filter((call) => call.campaign_id === held.id)).toHaveLength(4);
    expect((await progressOf(campaign.id)).by_outcome.answer).toBe(20);
    await control(suite.server, tenant.token, held.id, 'cancel');
  });

  test('a pass that runs late makes up the slots it missed, at most a second of them; slots stay one gap apart', async () => {
    const core = fakeCore(suite.server.ctx);
    const campaign = await runningCampaign({ calls_per_second: 10, max_concurrent: 1000 }, phoneList(200, 600));
    const slotsAt: number[] = [];
    const run = dispatcherOn(core, weekday(2, '13:00'), {
      schedule: (atMs, place) => {
        slotsAt.push(atMs);
        place();
      },
    });
    // Passes every 300 ms where 100 ms was meant (a loaded machine), the last at 9.9 s: every slot
    // from 0 to 10 s, 100 ms apart, is called, as on time.
    for (let tick = 0; tick < 34; tick++) {
      await run.pass();
      for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
      run.advance(300);
    }
    expect(core.placed.filter((call) => call.campaign_id === campaign.id)).toHaveLength(101);
    const gaps = slotsAt.slice(1).map((at, index) => at - slotsAt[index]!);
    expect(Math.min(...gaps)).toBe(100);
    // Idle for 5 s: the next pass makes up one second of calls, not five.
    run.advance(5000);
    await run.pass();
    expect(core.placed.filter((call) => call.campaign_id === campaign.id).length - 101).toBeLessThanOrEqual(12);
    expect(core.placed.filter((call) => call.campaign_id === campaign.id).length - 101).toBeGreaterThanOrEqual(10);
    for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
  });

  test('the provider’s pace is shared by the campaigns of its account', async () => {
    const core = fakeCore(suite.server.ctx);
    core.pace = 1;
    const first = await runningCampaign({ calls_per_second: 10, max_concurrent: 100 }, phoneList(30, 200));
    const second = await runningCampaign({ calls_per_second: 10, max_concurrent: 100 }, phoneList(30, 300));
    const run = dispatcherOn(core, weekday(3, '12:00'));
    for (let tick = 0; tick < 50; tick++) {
      await run.pass();
      run.advance(100);
    }
    // 5 s at one call a second for the account, whichever campaign makes it.
    expect(core.placed.filter((call) => call.campaign_id === first.id || call.campaign_id === second.id).length).toBeGreaterThanOrEqual(5);
    expect(core.placed.filter((call) => call.campaign_id === first.id || call.campaign_id === second.id).length).toBeLessThanOrEqual(6);
    for (const id of [first.id, second.id]) await control(suite.server, tenant.token, id, 'cancel');
  });

  test('the schedule: outside the range nothing dials; a contact with a zone is called in its own hours, one without in the tenant’s', async () => {
    const core = fakeCore(suite.server.ctx);
    const range = await suite.server.call({
      method: 'POST',
      url: '/date-ranges',
      token: tenant.token,
      payload: { name: 'Weekdays', time_zone: 'America/Sao_Paulo', intervals: ['monday', 'tuesday'].map((day) => ({ day, start: '09:00', end: '18:00' })) },
    });
    const csv = 'phone,zone\n+5511911110001,\n+5511911110002,Asia/Tokyo\n';
    const campaign = await runningCampaign({ date_range_id: range.json<{ id: number }>().id, calls_per_second: 10 }, csv, { phone: 'phone', time_zone: 'zone' });
    const calledNow = async (iso: string) => {
      const run = dispatcherOn(core, iso);
      await run.pass();
      return core.placed.filter((call) => call.campaign_id === campaign.id).map((call) => call.to);
    };
    // Sunday 10:00 in São Paulo, 22:00 in Tokyo: closed for both.
    expect(await calledNow(weekday(0, '13:00'))).toEqual([]);
    // Monday 00:00 in São Paulo, 12:00 in Tokyo: the Tokyo contact only.
    expect(await calledNow(weekday(1, '03:00'))).toEqual(['+5511911110002']);
    // Monday 10:00 in São Paulo (22:00 in Tokyo): the contact without a zone, in the tenant's.
    expect(await calledNow(weekday(1, '13:00'))).toEqual(['+5511911110002', '+5511911110001']);
  });

  test('retries by outcome, each after its delay; a machine counts apart from an answer; the last outcome and attempts are the contact’s result', async () => {
    const core = fakeCore(suite.server.ctx);
    const retries = { busy: { attempts: 1, delay_min: 10 }, no_answer: { attempts: 0, delay_min: 1 }, failed: { attempts: 0, delay_min: 1 }, machine: { attempts: 1, delay_min: 5 } };
    const campaign = await runningCampaign({ calls_per_second: 50, retries, machine_detection: true }, 'phone\n+5511922220001\n+5511922220002\n+5511922220003\n');
    const run = dispatcherOn(core, weekday(4, '12:00'));
    await run.pass();
    expect(core.placed.map((call) => [call.to, call.machine_detection]).sort()).toEqual([
      ['+5511922220001', true],
      ['+5511922220002', true],
      ['+5511922220003', true],
    ]);
    await core.end('+5511922220001', 'busy');
    await core.end('+5511922220002', 'no_answer');
    await core.end('+5511922220003', 'answer', 'machine');
    run.advance(4 * 60_000);
    await run.pass();
    expect(core.placed).toHaveLength(3);
    run.advance(60_000);
    await run.pass();
    expect(core.placed.map((call) => call.to).slice(3)).toEqual(['+5511922220003']);
    await core.end('+5511922220003', 'answer', 'human');
    run.advance(4 * 60_000 + 59_000);
    await run.pass();
    expect(core.placed).toHaveLength(4);
    run.advance(1000);
    await run.pass();
    expect(core.placed.map((call) => call.to).slice(4)).toEqual(['+5511922220001']);
    await core.end('+5511922220001', 'busy');
    run.advance(60 * 60_000);
    await run.pass();
    expect(core.placed).toHaveLength(5);
    const results = await resultsOf(campaign.id);
    expect(results.map((row) => [row.phone, row.state, row.last_outcome, row.attempts])).toEqual([
      ['+5511922220001', 'done', 'busy', 2],
      ['+5511922220002', 'done', 'no_answer', 1],
      ['+5511922220003', 'done', 'answer', 2],
    ]);
    expect(results.every((row) => row.last_session_id !== null)).toBe(true);
    const progress = await progressOf(campaign.id);
    expect(progress).toMatchObject({ status: 'completed', total: 3, done: 3, pending: 0, attempts: 5, by_outcome: { busy: 1, no_answer: 1, answer: 1, machine: 0 } });
  });

  test('a number on the do-not-call list is never dialled: its result is dont_call', async () => {
    const core = fakeCore(suite.server.ctx);
    const now = new Date().toISOString();
    await suite.server.ctx.db.insertInto('do_not_call').values({ tenant_id: tenant.tenantId, number: '+5511933330002', created_time: now, updated_time: now }).execute();
    const campaign = await runningCampaign({ calls_per_second: 10 }, 'phone\n+5511933330001\n(11) 93333-0002\n');
    const run = dispatcherOn(core, weekday(5, '12:00'));
    await run.pass();
    expect(core.placed.filter((call) => call.campaign_id === campaign.id).map((call) => call.to)).toEqual(['+5511933330001']);
    const results = await resultsOf(campaign.id);
    expect(results.map((row) => [row.phone, row.state, row.last_outcome, row.attempts])).toEqual([
      ['+5511933330001', 'in_progress', null, 1],
      ['+5511933330002', 'done', 'dont_call', 0],
    ]);
    await core.end('+5511933330001', 'answer', 'human');
  });

  test('two campaigns with the same number in one pass: the second waits for the first’s call, even before the core has stored it', async () => {
    const core = fakeCore(suite.server.ctx);
    const shared = '+5511955550001';
    const first = await runningCampaign({ calls_per_second: 50 }, `phone\n${shared}\n`);
    const second = await runningCampaign({ calls_per_second: 50 }, `phone\n${shared}\n`);
    // The calls are placed after the whole pass: neither is in the calls table while the other campaign claims.
    const later: Array<() => void> = [];
    let nowMs = Date.parse(weekday(5, '16:00'));
    const dispatcher = createDispatcher(suite.server.ctx, { calls: core, now: () => nowMs, schedule: (_at, run) => void later.push(run), intervalMs: 100 });
    await dispatcher.pass();
    for (const run of later.splice(0)) run();
    await dispatcher.placed();
    expect(core.placed.filter((call) => call.to === shared).map((call) => call.campaign_id)).toEqual([first.id]);
    const waiting = (await resultsOf(second.id)).find((row) => row.phone === shared)!;
    expect([waiting.state, waiting.attempts, waiting.last_outcome]).toEqual(['pending', 0, null]);
    await core.end(shared, 'answer', 'human');
    nowMs += 6000;
    await dispatcher.pass();
    for (const run of later.splice(0)) run();
    await dispatcher.placed();
    expect(core.placed.filter((call) => call.to === shared).map((call) => call.campaign_id)).toEqual([first.id, second.id]);
    await core.end(shared, 'answer', 'human');
  });

  test('a number the tenant has in a call now (another campaign’s, the API’s) waits: never two calls at once, no attempt used', async () => {
    const core = fakeCore(suite.server.ctx);
    const shared = '+5511944440001';
    const first = await runningCampaign({ calls_per_second: 50 }, `phone\n${shared}\n+5511944440002\n`);
    const second = await runningCampaign({ calls_per_second: 50 }, `phone\n${shared}\n+5511944440003\n`);
    const run = dispatcherOn(core, weekday(5, '15:00'));
    await run.pass();
    const calls = () => core.placed.filter((call) => call.campaign_id === first.id || call.campaign_id === second.id);
    expect(calls().filter((call) => call.to === shared)).toHaveLength(1);
    expect(calls()).toHaveLength(3);
    const waiting = (await resultsOf(second.id)).find((row) => row.phone === shared)!;
    expect([waiting.state, waiting.attempts, waiting.last_outcome]).toEqual(['pending', 0, null]);
    // Its call still rings: later passes leave the number alone.
    run.advance(6000);
    await run.pass();
    expect(calls()).toHaveLength(3);
    await core.end(shared, 'busy');
    run.advance(6000);
    await run.pass();
    expect(calls().filter((call) => call.to === shared).map((call) => call.campaign_id)).toEqual([first.id, second.id]);
    expect((await resultsOf(second.id)).find((row) => row.phone === shared)).toMatchObject({ state: 'in_progress', attempts: 1 });
    for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');

    // Claimed by two instances at the same moment: the core stores one call to a number, and refuses the other, which waits uncounted.
    const third = await runningCampaign({ calls_per_second: 50 }, 'phone\n+5511944440004\n');
    core.refuse = () => new AppError(409, 'outbound_number_in_call');
    run.advance(100);
    await run.pass();
    expect((await resultsOf(third.id))[0]).toMatchObject({ state: 'pending', attempts: 0, last_outcome: null });
    expect((await progressOf(third.id)).status).toBe('running');
  });

  test('at the licence’s limit it slows down and fails no call; refusals of the core become outcomes', async () => {
    const core = fakeCore(suite.server.ctx);
    const campaign = await runningCampaign({ calls_per_second: 50, max_concurrent: 50 }, phoneList(6, 400));
    const limited = { ...suite.server.ctx, license: { ...suite.server.ctx.license, limits: () => Promise.resolve({ concurrent_sessions: 2, tenants: 10, numbers: 10 }) } } as AppContext;
    const run = dispatcherOn(core, weekday(6, '12:00'), { ctx: limited });
    await run.pass();
    run.advance(100);
    await run.pass();
    expect(core.placed.filter((call) => call.campaign_id === campaign.id)).toHaveLength(2);
    // The core's own admission says no (another instance took the last session): the call waits, uncounted.
    core.refuse = () => new AppError(403, 'license_sessions_limit_reached');
    for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
    run.advance(100);
    await run.pass();
    expect((await resultsOf(campaign.id)).filter((row) => row.state === 'pending').map((row) => row.attempts)).toEqual([0, 0, 0, 0]);
    core.refuse = (request) => (request.to.endsWith('403') ? new AppError(400, 'invalid_phone_number' as never) : undefined);
    run.advance(10_000);
    for (let tick = 0; tick < 5; tick++) {
      await run.pass();
      for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
      run.advance(100);
    }
    const progress = await progressOf(campaign.id);
    expect(progress).toMatchObject({ status: 'completed', done: 6, by_outcome: { answer: 5, invalid_args: 1, failed: 0 } });
    // A refusal about the campaign itself pauses it, its contact back in the queue uncounted.
    const unpublished = await runningCampaign({ calls_per_second: 50 }, phoneList(3, 500));
    core.refuse = () => new AppError(400, 'plan_not_published');
    run.advance(100);
    await run.pass();
    expect(await progressOf(unpublished.id)).toMatchObject({ status: 'paused', pending: 3, attempts: 0, done: 0 });
  });
});

describe('many instances, and instances that stop', () => {
  test('two dispatchers on one database: every contact dialled exactly once', async () => {
    const core = fakeCore(suite.server.ctx);
    const campaign = await runningCampaign({ calls_per_second: 100, max_concurrent: 1000 }, phoneList(300, 1000));
    const one = dispatcherOn(core, weekday(7, '12:00'));
    const two = dispatcherOn(core, weekday(7, '12:00'));
    for (let tick = 0; tick < 40; tick++) {
      await Promise.all([one.pass(), two.pass()]);
      one.advance(100);
      two.advance(100);
    }
    const mine = core.placed.filter((call) => call.campaign_id === campaign.id).map((call) => call.to);
    expect(mine).toHaveLength(300);
    expect(new Set(mine).size).toBe(300);
    for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
  });

  test('a restart resumes; what a stopped instance left in progress is finished, none lost, none dialled twice', async () => {
    const core = fakeCore(suite.server.ctx);
    const noRetries = { attempts: 0, delay_min: 1 };
    const campaign = await runningCampaign({ calls_per_second: 100, max_concurrent: 100, retries: { busy: noRetries, no_answer: noRetries, failed: noRetries, machine: noRetries } }, phoneList(6, 2000));
    // The first instance claims three calls and dies: one before placing, one after placing
    // (its session never stored), one placed and ended while no listener ran.
    // The real clock: the core stamps its calls with it, and the recovery compares those stamps with the claims'.
    const nowMs = Date.now();
    const pending: Array<() => void> = [];
    const dead = createDispatcher(suite.server.ctx, { calls: core, now: () => nowMs, schedule: (_at, run) => void pending.push(run), intervalMs: 20, leaseS: 30 });
    expect(await dead.pass()).toBe(3);
    const [contact2, contact3] = (await resultsOf(campaign.id)).slice(1, 3);
    // The second call reached the core, but the instance died before it stored the session.
    await core.place({ tenant_id: tenant.tenantId, from: '+1', to: contact2!.phone, variables: {}, machine_detection: false, campaign_id: campaign.id, plan_id: tenant.planId });
    pending[2]!();
    await expect.poll(async () => (await resultsOf(campaign.id))[2]!.last_session_id).not.toBeNull();
    await core.end(contact3!.phone, 'no_answer', null, false);

    // The next start: within the lease nothing of the dead one's is touched; the rest goes on.
    const next = dispatcherOn(core, new Date(nowMs + 1000).toISOString(), { leaseS: 30 });
    await next.pass();
    const afterRestart = await resultsOf(campaign.id);
    expect(afterRestart.map((row) => row.state)).toEqual(['in_progress', 'in_progress', 'done', 'in_progress', 'in_progress', 'in_progress']);
    next.advance(31_000);
    for (let tick = 0; tick < 5; tick++) {
      await next.pass();
      for (const to of [...core.live.keys()]) await core.end(to, 'answer', 'human');
      next.advance(100);
    }
    const calls = core.placed.filter((call) => call.campaign_id === campaign.id).map((call) => call.to);
    expect(new Set(calls).size).toBe(6);
    expect(calls).toHaveLength(6);
    expect(await progressOf(campaign.id)).toMatchObject({ status: 'completed', done: 6, by_outcome: { answer: 5, no_answer: 1 } });
  });
});
