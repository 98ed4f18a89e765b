/**
 * The licence in force (docs/licence.md): the stored document checked again on every reading
 * (signature, this installation's id or this server's hardware id, the time now), the limits it grants or the defaults, and
 * the checks where those limits bite: a session starting, a tenant or a number created.
 */
import type { KeyObject } from 'node:crypto';
import {
  defaultLicenseLimits,
  type LicenseInfo,
  type LicenseLimits,
  type LicensePayload,
  type LicenseState,
  systemSettingValue,
} from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database, LicenseTable } from '../../db/schema.ts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { type AuditAuthor, recordAudit } from '../../resources/audit.recorder.ts';
import fs from 'node:fs/promises';
import { countRunningCalls, countRunningLike } from '../sessions/sessions.repository.ts';
import { cachedReading } from '../system/system-info.routes.ts';
import { type DecodedLicense, decodeLicense, publicKeyFrom } from './license-document.ts';
import { VENDOR_LICENSE_PUBLIC_KEY } from './vendor-key.ts';
import type { LicenseService } from './license.types.ts';

export type { LicenseService };

/** How long one instance trusts its reading of the stored licence: another instance's change shows within it. */
const LICENSE_READ_TTL_MS = 5_000;
/** A licence server that has not answered by then is unreachable. */
const SYNC_TIMEOUT_MS = 10_000;

export interface EvaluatedLicense {
  state: LicenseState;
  payload: LicensePayload | null;
  problem: LicenseInfo['problem'];
  limits: LicenseLimits;
}

/** The vendor's key, and those LICENSE_PUBLIC_KEYS adds (comma-separated SPKI DER in base64). */
export function trustedLicenseKeys(extra: string | undefined): KeyObject[] {
  const listed = (extra ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '');
  return [VENDOR_LICENSE_PUBLIC_KEY, ...listed].map((key) => publicKeyFrom(key));
}

/** Who reads a licence: the installation (every instance on one database) and the machine this instance runs on. */
export interface LicenseHolder {
  installation_id: string;
  hardware_id: string;
}

/**
 * Why a licence does not cover this holder, or null when it does: a licence naming an installation
 * covers every instance on its database, whatever machine; one naming a hardware id, that machine only.
 */
function mismatchOf(payload: LicensePayload, holder: LicenseHolder): { problem: 'installation_mismatch' | 'hardware_mismatch'; licensed: string; actual: string } | null {
  if (payload.installation_id !== undefined) {
    return payload.installation_id === holder.installation_id ? null : { problem: 'installation_mismatch', licensed: payload.installation_id, actual: holder.installation_id };
  }
  return payload.hardware_id === holder.hardware_id ? null : { problem: 'hardware_mismatch', licensed: payload.hardware_id ?? '', actual: holder.hardware_id };
}

/** What a stored document amounts to now, for this installation and server. */
export function evaluateLicense(document: string | undefined, keys: readonly KeyObject[], holder: LicenseHolder, now: Date): EvaluatedLicense {
  return evaluateDecoded(document === undefined ? undefined : decodeLicense(document, keys), holder, now);
}

/** The same, for a document already decoded (its signature checked once, not on every call that starts). */
function evaluateDecoded(decoded: DecodedLicense | undefined, holder: LicenseHolder, now: Date): EvaluatedLicense {
  const none = (problem: LicenseInfo['problem'], payload: LicensePayload | null = null): EvaluatedLicense => ({
    state: 'without_license',
    payload,
    problem,
    limits: defaultLicenseLimits,
  });
  if (decoded === undefined) return none(null);
  if (!decoded.ok) return none('invalid_signature');
  const { payload } = decoded;
  const mismatch = mismatchOf(payload, holder);
  if (mismatch) return none(mismatch.problem, payload);
  const expired = payload.expires_at !== null && Date.parse(payload.expires_at) <= now.getTime();
  const state: LicenseState = (payload.status === 'active' || payload.status === 'poc') && expired ? 'expired' : payload.status;
  return { state, payload, problem: null, limits: state === 'active' || state === 'poc' ? payload.limits : defaultLicenseLimits };
}

const limitCodes = {
  tenants: 'license_tenants_limit_reached',
  numbers: 'license_numbers_limit_reached',
  concurrent_sessions: 'license_sessions_limit_reached',
} as const;


export interface LicenseServiceOptions {
  db: Kysely<Database>;
  /** Extra trusted public keys (LICENSE_PUBLIC_KEYS). */
  extraPublicKeys?: string;
  hardwareId: () => Promise<string>;
  now?: () => Date;
  fetch?: typeof fetch;
}

const countOf = async (query: Promise<{ count: string | number | bigint } | undefined>): Promise<number> => Number((await query)?.count ?? 0);

export function createLicenseService(options: LicenseServiceOptions): LicenseService {
  const { db } = options;
  const keys = trustedLicenseKeys(options.extraPublicKeys);
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetch ?? fetch;
  const readRow = () => db.selectFrom('license').selectAll().where('id', '=', 1).executeTakeFirst();
  // Made once per database by its migration: it never changes while the server runs. `executor`:
  // a create's transaction, which on SQLite a read outside it would wait for. Only a reading that
  // succeeded is kept: one that met a database restart is tried again by the next caller.
  let installationId: Promise<string> | undefined;
  const readInstallationId = (executor: Kysely<Database> = db) => {
    if (installationId) return installationId;
    const reading = executor
      .selectFrom('installation')
      .select('installation_id')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow()
      .then((row) => row.installation_id);
    installationId = reading;
    reading.catch(() => {
      if (installationId === reading) installationId = undefined;
    });
    return reading;
  };
  const holder = async (executor?: Kysely<Database>): Promise<LicenseHolder> => ({ installation_id: await readInstallationId(executor), hardware_id: await options.hardwareId() });
  let cachedRow = cachedReading(readRow, LICENSE_READ_TTL_MS);
  const forget = () => {
    cachedRow = cachedReading(readRow, LICENSE_READ_TTL_MS);
  };

  // The last document decoded: every call that starts reads the licence, and it rarely changes.
  let decodedLast: { document: string; decoded: DecodedLicense } | undefined;
  async function evaluateStored(row: LicenseTable | undefined, executor?: Kysely<Database>): Promise<EvaluatedLicense> {
    if (row && decodedLast?.document !== row.document) decodedLast = { document: row.document, decoded: decodeLicense(row.document, keys) };
    return evaluateDecoded(row ? decodedLast!.decoded : undefined, await holder(executor), now());
  }

  /** The licence as `row` holds it, or as this instance last read it (at most LICENSE_READ_TTL_MS ago). */
  async function evaluated(row?: LicenseTable): Promise<EvaluatedLicense> {
    return evaluateStored(row ?? (await cachedRow()));
  }

  async function usage(): Promise<LicenseInfo['usage']> {
    const [sessions, tenants, numbers] = await Promise.all([
      countRunningCalls(db),
      countOf(db.selectFrom('tenants').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst()),
      countOf(db.selectFrom('numbers').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst()),
    ]);
    return { concurrent_sessions: sessions, tenants, numbers };
  }

  async function info(): Promise<LicenseInfo> {
    const row = await readRow();
    const current = await evaluated(row);
    const serverUrl = await licenseServerUrl(db);
    return {
      state: current.state,
      license: current.payload && withoutFormat(current.payload),
      problem: current.problem,
      limits: current.limits,
      default_limits: defaultLicenseLimits,
      usage: await usage(),
      hardware_id: await options.hardwareId(),
      installation_id: await readInstallationId(),
      activated_time: row?.activated_time ?? null,
      activated_by: row?.activated_by ?? null,
      last_sync_time: row?.last_sync_time ?? null,
      last_sync_result: row?.last_sync_result ?? null,
      sync_configured: serverUrl !== '',
    };
  }

  /** A document this server may use: signed by a trusted key, for this installation (or this hardware). */
  async function checked(document: string): Promise<{ payload: LicensePayload; document: string }> {
    const decoded = decodeLicense(document, keys);
    if (!decoded.ok) throw badRequest(decoded.problem, [{ path: 'license', message: decoded.detail }]);
    const current = await holder();
    if (decoded.payload.installation_id === undefined && (current.hardware_id === '' || current.hardware_id === '—')) throw badRequest('license_missing_hardware_id');
    const mismatch = mismatchOf(decoded.payload, current);
    if (mismatch) {
      const [code, field] = mismatch.problem === 'installation_mismatch' ? (['license_installation_mismatch', 'installation_id'] as const) : (['license_hardware_mismatch', 'hardware_id'] as const);
      throw new AppError(400, code, [{ path: 'license', message: field }], undefined, { licensed: mismatch.licensed, actual: mismatch.actual });
    }
    return decoded;
  }

  const audit = (scope: AuditAuthor, action: 'create' | 'update' | 'delete', before: LicensePayload | null, after: LicensePayload | null) =>
    recordAudit(db, scope, [{ action, entity: 'license', entityId: before?.serial ?? after?.serial ?? null, tenantId: null, before, after }]);

  /** Writes the document; `activatedBy` undefined keeps the activation as it was (a sync that changed nothing). */
  async function store(document: string, activatedBy: string | null | undefined, sync?: { result: LicenseTable['last_sync_result'] }): Promise<void> {
    const time = nowIso();
    const changes = {
      document,
      ...(activatedBy !== undefined && { activated_time: time, activated_by: activatedBy }),
      ...(sync && { last_sync_time: time, last_sync_result: sync.result }),
    };
    await db
      .insertInto('license')
      .values({ id: 1, activated_time: time, activated_by: activatedBy ?? null, ...changes })
      .onConflict((oc) => oc.column('id').doUpdateSet(changes))
      .execute();
    forget();
  }

  async function syncFailed(message: string): Promise<never> {
    await db.updateTable('license').set({ last_sync_time: nowIso(), last_sync_result: 'error' }).where('id', '=', 1).execute();
    forget();
    throw new AppError(502, 'license_sync_error', [{ path: 'license_server_url', message }]);
  }

  return {
    info,
    installationId: () => readInstallationId(),

    async activate(document, scope) {
      const next = await checked(document);
      const row = await readRow();
      const current = await evaluated(row);
      // Another licence in force stays until it is removed: pasting a second one by mistake must not replace it.
      if ((current.state === 'active' || current.state === 'poc') && current.payload && current.payload.serial !== next.payload.serial) {
        throw conflict('license_already_licensed', [{ path: 'license', message: `licence ${current.payload.serial} is in force` }]);
      }
      await store(next.document, scope.actor.username);
      await audit(scope, row ? 'update' : 'create', current.payload, next.payload);
      return info();
    },

    async refresh() {
      forget();
      if (!(await readRow())) throw notFound('license_not_found');
      return info();
    },

    async sync(scope) {
      const row = await readRow();
      if (!row) throw notFound('license_not_found');
      const url = await licenseServerUrl(db);
      if (url === '') throw badRequest('license_missing_configuration', [{ path: 'license_server_url', message: 'no licence server is set' }]);
      const current = await evaluated(row);
      const { hardware_id: hardwareId, installation_id: installationIdNow } = await holder();
      let answer: unknown;
      try {
        const response = await fetchImpl(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            serial: current.payload?.serial ?? null,
            hardware_id: hardwareId,
            installation_id: installationIdNow,
            product: current.payload?.product ?? null,
          }),
          signal: AbortSignal.timeout(SYNC_TIMEOUT_MS),
        });
        if (!response.ok) return await syncFailed(`the licence server answered ${response.status}`);
        answer = await response.json();
      } catch (error) {
        return await syncFailed(error instanceof Error ? error.message : 'unreachable');
      }
      const document = typeof answer === 'object' && answer !== null ? (answer as { license?: unknown }).license : undefined;
      if (typeof document !== 'string') return await syncFailed('the answer holds no licence');
      // What the server sends must be signed like any licence: an unsigned "blocked" is not believed.
      let next: { payload: LicensePayload; document: string };
      try {
        next = await checked(document);
      } catch (error) {
        return await syncFailed(error instanceof AppError ? error.code : 'not a licence');
      }
      if (current.payload && next.payload.serial !== current.payload.serial) return await syncFailed('the answer is for another serial');
      const result = next.document === row.document ? 'unchanged' : next.payload.status === 'blocked' ? 'blocked' : next.payload.status === 'canceled' ? 'canceled' : 'renewed';
      await store(next.document, result === 'unchanged' ? undefined : scope.actor.username, { result });
      if (result !== 'unchanged') await audit(scope, 'update', current.payload, next.payload);
      return info();
    },

    async remove(scope) {
      const row = await readRow();
      if (!row) throw notFound('license_not_found');
      const current = await evaluated(row);
      await db.deleteFrom('license').where('id', '=', 1).execute();
      forget();
      await audit(scope, 'delete', current.payload, null);
      return info();
    },

    async limits() {
      return (await evaluated()).limits;
    },

    async assertRoom(kind, trx) {
      // Read through the create's transaction: on SQLite a read outside it would wait for it to end.
      const row = await trx.selectFrom('license').selectAll().where('id', '=', 1).executeTakeFirst();
      const max = (await evaluateStored(row, trx)).limits[kind];
      const count = await countOf(trx.selectFrom(kind).select((eb) => eb.fn.countAll().as('count')).executeTakeFirst());
      if (count >= max) throw new AppError(403, limitCodes[kind], undefined, undefined, { max });
    },

    async admitSession(session, counted) {
      const max = (await evaluated()).limits.concurrent_sessions;
      const running = counted ?? (await countRunningLike(db, session));
      if (running < max) return;
      await recordRefusal(db, { tenant_id: session.tenant_id, provider: session.provider, reason: limitCodes.concurrent_sessions }, now());
      throw new AppError(403, limitCodes.concurrent_sessions, undefined, undefined, { max });
    },
  };
}

/** How long a refusal is kept: the dashboard's system status looks back this far (GET /stats/system). */
export const REFUSALS_WINDOW_S = 3600;

/** Keeps a refusal for the dashboard, and forgets those it no longer shows. */
async function recordRefusal(db: Kysely<Database>, refusal: { tenant_id: number; provider: string; reason: string }, at: Date): Promise<void> {
  await db.deleteFrom('session_refusals').where('created_time', '<', new Date(at.getTime() - REFUSALS_WINDOW_S * 1000).toISOString()).execute();
  await db.insertInto('session_refusals').values({ ...refusal, created_time: at.toISOString() }).execute();
}

const withoutFormat = ({ format: _format, ...fields }: LicensePayload): Omit<LicensePayload, 'format'> => fields;

async function licenseServerUrl(db: Kysely<Database>): Promise<string> {
  const row = await db.selectFrom('configurations').select('value').where('name', '=', 'license_server_url').executeTakeFirst();
  return systemSettingValue('license_server_url', row?.value);
}

/**
 * LICENSE_FILE: the document activated at start when no licence is stored (an installation
 * provisioned by its configuration). One that cannot be used stops the start, saying why.
 */
export async function provisionLicense(license: LicenseService, db: Kysely<Database>, file: string): Promise<void> {
  if (await db.selectFrom('license').select('id').executeTakeFirst()) return;
  const document = await fs.readFile(file, 'utf8');
  try {
    await license.activate(document, { actor: { userId: null, username: null }, sourceIp: null });
  } catch (error) {
    const code = error instanceof AppError ? error.code : String(error);
    throw new Error(`LICENSE_FILE ${file} cannot be activated: ${code}`, { cause: error });
  }
}
