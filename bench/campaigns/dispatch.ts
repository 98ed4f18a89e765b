/**
 * bench:campaigns, the dispatch half (issue 38, docs/campaigns.md "Measures"): 10,000 contacts
 * (`--contacts N` for fewer) dispatched at 50 calls a second by two server processes on one
 * throwaway PostgreSQL, as `npm start` runs them (apps/server/test/server-process.ts), against the
 * local Twilio REST server (apps/server/test/twilio-rest.ts) in this process, which plays Twilio:
 * it answers each create and posts the call's signed `busy` status callback to one instance or the
 * other, alternately, so every call ends at once and no retry follows.
 *
 * Printed: the rate achieved from the first call Twilio got to the last, against the pace (within
 * 5 %); duplicates (a number dialled twice) and lost contacts (never dialled), both 0; the CPU time
 * of the two server processes (/proc/<pid>/stat) per dispatched call, from the start of the
 * campaign to its completion. The floor: this process's CPU per call over the same span, the
 * Twilio side of the same HTTP exchange (a create received and answered, a callback sent), which
 * the app cannot go below: it sends that create and receives that callback.
 */
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import twilio from 'twilio';
import type { CampaignProgress } from '@voxplan/contracts';
import { ADMIN } from '../../apps/server/test/harness.ts';
import { createTestDatabase, startPostgres } from '../../apps/server/test/postgres-server.ts';
import { type Cleanups, createTenantMemberOver, request, type ServerProcess, startServerProcess } from '../../apps/server/test/server-process.ts';
import { type CreatedCall, startTwilioRest } from '../../apps/server/test/twilio-rest.ts';
import { procCpuSecondsOf } from '../lib/proc-cpu.ts';

const { values: args } = parseArgs({ options: { contacts: { type: 'string', default: '10000' } } });
const CONTACTS = Number(args.contacts);
if (!Number.isInteger(CONTACTS) || CONTACTS < 2) throw new Error(`--contacts ${args.contacts}: a whole number, 2 or more`);
const PACE = 50;
const TOLERANCE = 0.05;
/** How long the campaign may take to complete once every call was placed and its end told. */
const GRACE_MS = 30_000;
const PUBLIC_URL = 'https://bench-campaigns.example.com';
const ACCOUNT = 'AC0000000000000000000000000000b38a';
const TOKEN = 'bench-campaigns-twilio-token';
const BOUNDARY = '----voxplanbenchdispatch';

/**
 * Seconds a process's threads ran, and spent runnable but waiting for a CPU (the run queue), from
 * /proc/<pid>/task/<tid>/schedstat (nanoseconds): how much more CPU the app wanted than it got on
 * a shared machine.
 */
function schedSecondsOf(pid: number): { ran: number; waited: number } {
  let ran = 0;
  let waited = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [onCpu, onQueue] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      ran += onCpu ?? 0;
      waited += onQueue ?? 0;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return { ran: ran / 1e9, waited: waited / 1e9 };
}

function contactsCsv(): string {
  const lines = ['phone,name'];
  for (let index = 0; index < CONTACTS; index++) lines.push(`+55119${String(10_000_000 + index).slice(-8)},Person ${index}`);
  return `${lines.join('\n')}\n`;
}

function multipart(mapping: string, csv: string): string {
  return (
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n${mapping}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${BOUNDARY}--\r\n`
  );
}

/** Twilio's final status callback of a call nobody answered, signed as Twilio signs it, to one instance. */
async function tellBusy(target: ServerProcess, agent: http.Agent, created: CreatedCall): Promise<void> {
  const url = created.form.get('StatusCallback')!;
  const form = { AccountSid: ACCOUNT, CallSid: created.sid, From: created.form.get('From')!, To: created.form.get('To')!, Direction: 'outbound-api', CallStatus: 'busy' };
  const answer = await request(agent, target.port, 'POST', url.slice(PUBLIC_URL.length), new URLSearchParams(form).toString(), undefined, {
    'content-type': 'application/x-www-form-urlencoded',
    'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, url, form),
  });
  if (answer.status !== 204) throw new Error(`status callback: ${answer.status} ${answer.body}`);
}

async function main(): Promise<void> {
  const cleanups: Cleanups = [];
  try {
    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    // Its server goes with it, so the database is not dropped.
    const database = await createTestDatabase(postgres.url);
    const rest = await startTwilioRest({ [ACCOUNT]: TOKEN });
    cleanups.push(() => rest.close());
    const shared = { DATABASE_URL: database.url, MASTER_KEY: '38'.repeat(32), PUBLIC_URL, TWILIO_API_URL: rest.url, TWILIO_CALLS_PER_SECOND: String(PACE), LOG_LEVEL: 'error' };
    // One first, so that it migrates the database alone; then the second instance on it.
    const first = await startServerProcess(cleanups, shared);
    const second = await startServerProcess(cleanups, shared);
    const instances = [first, second];

    const call = first.call;
    const admin = (await call<{ token: string }>('POST', '/login', ADMIN)).token;
    const tenant = await createTenantMemberOver(call, admin, 'bench-dispatch');
    await call('PATCH', `/tenants/${tenant.tenantId}/integrations`, { twilio_sid: ACCOUNT, twilio_token: TOKEN }, admin);
    const plan = await call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Reminder' }, tenant.token);
    await call('POST', `/visual-plans/${plan.id}/publish`, { base_version: plan.version }, tenant.token);
    const number = await call<{ id: number }>('POST', '/numbers', { number: '+551140003800', provider: 'twilio' }, tenant.token);
    const none = { attempts: 0, delay_min: 1 };
    const campaign = await call<{ id: number }>(
      'POST',
      '/campaigns',
      { name: 'Bench dispatch', plan_id: plan.id, number_id: number.id, calls_per_second: PACE, max_concurrent: 1000, retries: { busy: none, no_answer: none, failed: none, machine: none } },
      tenant.token,
    );
    const uploaded = await call<{ imported: number }>('POST', `/campaigns/${campaign.id}/contacts`, multipart(JSON.stringify({ phone: 'phone', name: 'name' }), contactsCsv()), tenant.token, {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    });
    if (uploaded.imported !== CONTACTS) throw new Error(`imported ${uploaded.imported} of ${CONTACTS}`);

    const agents = instances.map(() => new http.Agent({ keepAlive: true, maxSockets: 8 }));
    cleanups.push(() => agents.forEach((agent) => agent.destroy()));
    const serverCpuBefore = instances.map((instance) => procCpuSecondsOf(instance.child.pid!));
    const schedBefore = instances.map((instance) => schedSecondsOf(instance.child.pid!));
    const ownCpuBefore = process.cpuUsage();
    const seenAt: number[] = [];
    const pendingTells = new Set<Promise<void>>();
    let failure: unknown;
    let progress: CampaignProgress | undefined;
    const started = performance.now();
    await call('POST', `/campaigns/${campaign.id}/start`, undefined, tenant.token);

    const deadline = started + (CONTACTS / PACE) * 3000 + 60_000;
    let lastProgress = 0;
    // Once every call was placed and its end told: the CPU then, and a grace for the campaign to complete.
    let allTold: { at: number; serverCpu: number[]; sched: Array<{ ran: number; waited: number }>; own: NodeJS.CpuUsage } | undefined;
    for (;;) {
      while (seenAt.length < rest.calls.length) {
        const index = seenAt.length;
        seenAt.push(performance.now());
        const tell = tellBusy(instances[index % 2]!, agents[index % 2]!, rest.calls[index]!).catch((error: unknown) => void (failure ??= error));
        pendingTells.add(tell);
        void tell.finally(() => pendingTells.delete(tell));
      }
      if (failure) throw failure;
      if (performance.now() - lastProgress > 500) {
        lastProgress = performance.now();
        progress = await call<CampaignProgress>('GET', `/campaigns/${campaign.id}/progress`, undefined, tenant.token);
        if (progress.status === 'completed') break;
      }
      if (!allTold && rest.calls.length >= CONTACTS && pendingTells.size === 0) {
        allTold = {
          at: performance.now(),
          serverCpu: instances.map((instance) => procCpuSecondsOf(instance.child.pid!)),
          sched: instances.map((instance) => schedSecondsOf(instance.child.pid!)),
          own: process.cpuUsage(ownCpuBefore),
        };
      }
      // Not completed: the figures are still printed, with what is left in progress.
      if (performance.now() > deadline || (allTold && performance.now() - allTold.at > GRACE_MS)) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(pendingTells);
    const elapsed = ((allTold?.at ?? performance.now()) - started) / 1000;
    const serverCpu = instances.map((instance, index) => (allTold?.serverCpu[index] ?? procCpuSecondsOf(instance.child.pid!)) - serverCpuBefore[index]!);
    const schedAfter = allTold?.sched ?? instances.map((instance) => schedSecondsOf(instance.child.pid!));
    const ran = schedAfter.reduce((sum, after, index) => sum + after.ran - schedBefore[index]!.ran, 0);
    const waited = schedAfter.reduce((sum, after, index) => sum + after.waited - schedBefore[index]!.waited, 0);
    const ownUsage = allTold?.own ?? process.cpuUsage(ownCpuBefore);
    const ownCpu = (ownUsage.user + ownUsage.system) / 1e6;

    const dialled = rest.calls.map((created) => created.form.get('To'));
    const distinct = new Set(dialled).size;
    const duplicates = dialled.length - distinct;
    const lost = CONTACTS - distinct;
    const rate = (seenAt.length - 1) / ((seenAt.at(-1)! - seenAt[0]!) / 1000);
    const rateOk = Math.abs(rate - PACE) <= PACE * TOLERANCE;
    // Calls in each whole second since the first: the pace is a ceiling too, and a gap shows a late dispatcher pass.
    const secondOf = (at: number) => Math.floor((at - seenAt[0]!) / 1000);
    const fullSeconds = new Array<number>(secondOf(seenAt.at(-1)!)).fill(0);
    for (const at of seenAt) if (secondOf(at) < fullSeconds.length) fullSeconds[secondOf(at)]!++;
    const totalServerCpu = serverCpu[0]! + serverCpu[1]!;
    const perCallMs = (seconds: number) => (seconds / dialled.length) * 1000;

    const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(52)} ${value}\n`);
    process.stdout.write(`\nbench:campaigns — dispatch of ${CONTACTS.toLocaleString('en')} contacts at ${PACE} calls a second, two instances on PostgreSQL, local Twilio server\n`);
    line('calls placed', `${dialled.length.toLocaleString('en')} in ${elapsed.toFixed(1)} s from start to the last end told`);
    line('rate, first call to last', `${rate.toFixed(2)} calls/s (pace ${PACE}, ±${TOLERANCE * 100} %: ${rateOk ? 'ok' : 'FAIL'})`);
    if (fullSeconds.length > 0) line('calls in a second: fewest, most', `${Math.min(...fullSeconds)}, ${Math.max(...fullSeconds)}`);
    line('duplicates (a number dialled twice)', `${duplicates} ${duplicates === 0 ? 'ok' : 'FAIL'}`);
    line('lost (a contact never dialled)', `${lost} ${lost === 0 ? 'ok' : 'FAIL'}`);
    const progressOk = progress?.status === 'completed' && progress.done === CONTACTS && progress.by_outcome.busy === CONTACTS && progress.attempts === CONTACTS;
    line('progress at the end', `${progress?.status}: done ${progress?.done}, in progress ${progress?.in_progress}, busy ${progress?.by_outcome.busy}, attempts ${progress?.attempts} ${progressOk ? 'ok' : 'FAIL'}`);
    line('CPU of the instances (first + second)', `${serverCpu.map((seconds) => seconds.toFixed(2)).join(' + ')} = ${totalServerCpu.toFixed(2)} s`);
    line('CPU of the instances per call', `${perCallMs(totalServerCpu).toFixed(2)} ms`);
    line('cores the instances used, and the pace needs', `${(totalServerCpu / elapsed).toFixed(2)} used; ${((totalServerCpu / dialled.length) * PACE).toFixed(2)} at ${PACE} calls/s`);
    line('instances: ran, waited for a CPU (run queue)', `${ran.toFixed(1)} s, ${waited.toFixed(1)} s (${(waited / Math.max(ran, 1e-9)).toFixed(2)} s waited a second run)`);
    line('floor: Twilio side per call (this process)', `${perCallMs(ownCpu).toFixed(2)} ms`);
    line('app ÷ floor', `${(totalServerCpu / ownCpu).toFixed(2)}`);
    if (!rateOk || duplicates !== 0 || lost !== 0 || !progressOk) process.exitCode = 3;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

await main();
