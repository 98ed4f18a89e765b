/**
 * bench:campaigns (issue 38, docs/campaigns.md). The import: 100,000 contacts uploaded over HTTP as
 * the console sends them (multipart, the CSV streamed from a generator, never whole in memory) to
 * the real app on SQLite; the time, and the peak memory (RSS, sampled every 10 ms) over the idle
 * server's. Target: at most 200 MB over idle. The floor: the same CSV read by the reader and its
 * numbers normalised, without the database (what the import cannot go below).
 *
 * The dispatch half (10,000 contacts at 50 calls a second over two PostgreSQL instances against the
 * local Twilio server) is dispatch.ts, which `npm run bench:campaigns` runs after this one.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../../apps/server/src/app.ts';
import { startContext } from '../../apps/server/src/bootstrap.ts';
import { CsvReader } from '../../apps/server/src/lib/csv-reader.ts';
import { toE164 } from '../../apps/server/src/lib/phone-numbers.ts';
import { BENCH_ADMIN, benchServerConfig } from '../lib/server-config.ts';

const ROWS = Number(process.env.BENCH_CAMPAIGN_ROWS ?? 100_000);
const TARGET_MB = 200;
const BOUNDARY = '----voxplanbench';

function* csvLines(): Generator<string> {
  yield 'phone,name,amount\n';
  // National numbers, as lists come from spreadsheets: each one goes through libphonenumber.
  for (let index = 0; index < ROWS; index++) yield `(11) 9${String(10_000_000 + index).slice(-8).replace(/^(\d{4})/, '$1-')},Person ${index},${index % 1000}.00\n`;
}

function* multipartBody(mapping: string): Generator<Buffer> {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n${mapping}\r\n`);
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  let batch = '';
  for (const line of csvLines()) {
    batch += line;
    if (batch.length > 64 * 1024) {
      yield Buffer.from(batch);
      batch = '';
    }
  }
  yield Buffer.from(`${batch}\r\n--${BOUNDARY}--\r\n`);
}

function post(port: number, urlPath: string, token: string, body: Iterable<Buffer>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    const chunks = body[Symbol.iterator]();
    const write = () => {
      for (let next = chunks.next(); !next.done; next = chunks.next()) {
        if (!request.write(next.value)) {
          request.once('drain', write);
          return;
        }
      }
      request.end();
    };
    write();
  });
}

function floorMs(): number {
  const started = performance.now();
  const reader = new CsvReader();
  let valid = 0;
  let text = '';
  const count = (records: { fields: string[] }[]) => {
    for (const record of records) if (toE164(record.fields[0] ?? '', 'BR')) valid++;
  };
  for (const line of csvLines()) {
    text += line;
    if (text.length > 64 * 1024) {
      count(reader.push(text));
      text = '';
    }
  }
  count(reader.push(text));
  count(reader.end());
  if (valid !== ROWS) throw new Error(`the floor read ${valid} valid numbers of ${ROWS}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-campaigns-'));
  const started = await startContext(await benchServerConfig(dataDir));
  const app = await buildApp(started.ctx, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  try {
    const json = async <T>(method: 'GET' | 'POST', url: string, token?: string, payload?: Record<string, unknown>) => {
      const answer = await app.inject({ method, url: `/api/v1${url}`, ...(payload && { payload }), headers: { ...(token && { authorization: `Bearer ${token}` }) } });
      if (answer.statusCode >= 300) throw new Error(`${method} ${url}: ${answer.statusCode} ${answer.body}`);
      return answer.json<T>();
    };
    const admin = (await json<{ token: string }>('POST', '/login', undefined, BENCH_ADMIN)).token;
    const tenant = await json<{ id: number }>('POST', '/tenants', admin, { name: 'bench-campaigns' });
    await started.ctx.db.updateTable('tenants').set({ country: 'BR', time_zone: 'America/Sao_Paulo' }).where('id', '=', tenant.id).execute();
    await json('POST', '/users', admin, { username: 'bench-user', password: 'bench-password-1', email: 'bench@example.com', name: 'Bench', roles: [{ role: 'user', tenant_id: tenant.id }] });
    const token = (await json<{ token: string }>('POST', '/login', undefined, { username: 'bench-user', password: 'bench-password-1' })).token;
    const plan = await json<{ id: number }>('POST', '/visual-plans', token, { name: 'Reminder' });
    const number = await json<{ id: number }>('POST', '/numbers', token, { number: '+551140000001', provider: 'twilio' });
    const campaign = await json<{ id: number }>('POST', '/campaigns', token, { name: 'Bench', plan_id: plan.id, number_id: number.id });

    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = process.memoryUsage.rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    const cpuBefore = process.cpuUsage();
    const t0 = performance.now();
    const answer = await post(port, `/api/v1/campaigns/${campaign.id}/contacts`, token, multipartBody(JSON.stringify({ phone: 'phone', name: 'name', variables: { amount: 'amount' } })));
    const elapsed = performance.now() - t0;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${answer.text}`);
    const result = JSON.parse(answer.text) as { imported: number; invalid: number };
    if (result.imported !== ROWS || result.invalid !== 0) throw new Error(`imported ${result.imported}, invalid ${result.invalid}, of ${ROWS}`);
    const overIdleMb = (peak - idle) / 1024 / 1024;
    const floor = floorMs();
    const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
    process.stdout.write(`\nbench:campaigns — import of ${ROWS.toLocaleString('en')} contacts (SQLite, multipart over HTTP)\n`);
    line('time', `${(elapsed / 1000).toFixed(2)} s (${Math.round(ROWS / (elapsed / 1000)).toLocaleString('en')} rows/s)`);
    line('CPU of the process', `${((cpu.user + cpu.system) / 1000 / 1000).toFixed(2)} s`);
    line('peak memory over idle (RSS)', `${overIdleMb.toFixed(1)} MB (target ≤ ${TARGET_MB} MB: ${overIdleMb <= TARGET_MB ? 'ok' : 'FAIL'})`);
    line('floor: read + normalise only, no database', `${(floor / 1000).toFixed(2)} s`);
    line('app ÷ floor', `${(elapsed / floor).toFixed(2)}`);
    if (overIdleMb > TARGET_MB) process.exitCode = 3;
  } finally {
    await app.close();
    await started.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
