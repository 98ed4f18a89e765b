import { systemSettings, systemSettingType } from '@voxplan/contracts';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { Config } from './config.ts';
import { openDatabase, withUnboundedDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createAccessTokens } from './lib/access-tokens.ts';
import { deriveKeys, loadMasterKey, randomToken } from './lib/keys.ts';
import { hashPassword } from './lib/passwords.ts';
import { failAbandonedGenerations } from './modules/audios/tts-jobs.ts';
import { nowIso } from './lib/time.ts';
import { defaultTenantName } from './modules/tenants/default-tenant.ts';
import { createAiPort } from './modules/ai/ai-port.ts';
import { createAudioLookup } from './modules/audios/audio-lookup.ts';
import { createMediaUrls } from './modules/audios/media-urls.ts';
import { enqueuePlanEvent } from './modules/plan-webhook/plan-webhook.service.ts';
import { countedAdmission, countedHandOff, countedSessionEvents, createMetrics } from './modules/metrics/metrics.ts';
import { planWebhookEvents } from './modules/sessions/plan-webhook-events.ts';
import { combineSessionEvents } from './modules/sessions/session-events.ts';
import { createChatHandOff } from './modules/sessions/chat-handoff.ts';
import { createSessionRuntime, type SessionRuntime } from './modules/sessions/sessions.service.ts';
import { closeLeftConversation, openQueueConversation, sweepUnanswered } from './modules/conversations/queue-handoff.ts';
import { sweepCustomersGone } from './modules/conversations/customer-left.ts';
import { createDeskHandOff } from './modules/conversations/desk.ts';
import { sweepTransfers } from './modules/conversations/transfer-sweep.ts';
import { API_PREFIX, type ServerContext } from './app.ts';
import { createChannelRegistry } from './channels/registry.ts';
import { createLicenseService, provisionLicense } from './modules/license/license.service.ts';
import { readHardwareId } from './modules/system/system-info.routes.ts';
import { createSettingsOutboundHttp } from './outbound/settings.ts';
import { createOutboundCalls } from './modules/outbound-calls/outbound-calls.service.ts';

export interface Started {
  ctx: ServerContext;
  /** Set when this start created the administrator with a generated password. */
  generatedAdminPassword?: string;
  /** Starts the Lua workers now, rather than on the first script a plan runs. */
  warm(): Promise<void>;
  /** Drops kept outbound connections, stops the Lua workers and closes the database; stop the chat sweeper first. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** The process's one logger (main.ts gives the app's); unset, one at LOG_LEVEL. */
  logger?: FastifyBaseLogger;
}

/** Opens the database, migrates it and makes sure an administrator and the system settings exist. */
export async function startContext(config: Config, options: StartOptions = {}): Promise<Started> {
  const logger: FastifyBaseLogger = options.logger ?? pino({ level: config.logLevel });
  const log = (message: string) => logger.warn(message);
  const handle = openDatabase({
    ...config,
    bounds: config.database,
    // An idle connection the server dropped: the monitor's one line says the database is away, this one is the detail.
    onPoolError: (error) => logger.debug({ err: error }, `database connection lost: ${error.message}`),
    log,
    availabilityLog: logger,
  });
  // One Lua runner per server: its workers start on the first script, or at warm().
  const scripts = new LuaScriptRunner();
  const outbound = createSettingsOutboundHttp(handle.db, handle.readCache);
  let sessions: SessionRuntime | undefined;
  const close = async () => {
    // Hand-offs under way finish their attempt and store nothing more once the database is closing.
    await sessions?.close();
    outbound.close();
    await scripts.close();
    await handle.close();
  };
  try {
    await withUnboundedDatabase(handle, config.databaseUrl, (db) => migrateToLatest(db, handle.dialect));
    // Until the bus listens, nothing is served from the read cache; waiting here starts the server with it.
    await handle.ready;
    const keys = deriveKeys(loadMasterKey(config));
    const tokens = createAccessTokens(keys.tokenKey, config.accessTokenTtlSeconds);
    const base = {
      config,
      db: handle.db,
      dialect: handle.dialect,
      readCache: handle.readCache,
      bus: handle.bus,
      keys,
      tokens,
      outbound,
      channels: createChannelRegistry(),
    };
    const license = createLicenseService({ db: handle.db, extraPublicKeys: config.licensePublicKeys, hardwareId: readHardwareId });
    const metrics = createMetrics();
    if (config.licenseFile) await provisionLicense(license, handle.db, config.licenseFile);
    // Made before the runtime, whose end hooks it gives; it reads the whole context once a call needs it.
    const outboundCalls = createOutboundCalls(() => ctx, { log });
    sessions = createSessionRuntime(base, {
      admit: countedAdmission((session, running: number) => license.admitSession(session, running), metrics),
      scripts,
      log,
      audios: createAudioLookup(base.db, createMediaUrls(keys.mediaKey, config.publicUrl)),
      messaging: { twilioApiUrl: config.twilioApiUrl },
      events: countedSessionEvents(combineSessionEvents(planWebhookEvents(enqueuePlanEvent, log), outboundCalls.sessionEvents), metrics),
      sessionEnded: (session) => outboundCalls.sessionEnded(session),
      handOff: countedHandOff(createChatHandOff(base), metrics),
      // The conversations resume parked chats through this runtime: read when they run, once it exists.
      queueHandOff: (request) => openQueueConversation({ ...base, sessions: sessions! }, request),
      sweepParked: async () => {
        await sweepUnanswered({ ...base, sessions: sessions! });
        await sweepTransfers({ ...base, sessions: sessions! });
        await sweepCustomersGone({ ...base, sessions: sessions! });
      },
      chatEnded: (sessionId) => closeLeftConversation({ ...base, sessions: sessions! }, sessionId),
      deskHandOff: createDeskHandOff({ ...base, get sessions() { return sessions!; } }, API_PREFIX),
      ai: createAiPort(base, { log, metrics }),
    });
    const ctx: ServerContext = { ...base, sessions, license, outboundCalls, metrics, databaseAvailability: handle.availability, logger, ...(handle.poolStats && { databasePool: handle.poolStats }) };
    const now = nowIso();
    // Type "sistema", so that nobody removes them.
    for (const [name, setting] of Object.entries(systemSettings)) {
      const { category, description } = setting;
      await ctx.db
        .insertInto('configurations')
        .values({ name, value: setting.default, category, description, type: systemSettingType, created_time: now, updated_time: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    }
    await failAbandonedGenerations(ctx.db);
    let generatedAdminPassword: string | undefined;
    const anyUser = await ctx.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (!anyUser) {
      const password = config.adminPassword ?? randomToken(12);
      if (!config.adminPassword) generatedAdminPassword = password;
      await ctx.db.transaction().execute(async (trx) => {
        const user = await trx
          .insertInto('users')
          .values({
            username: config.adminUsername,
            email: config.adminEmail,
            name: 'Administrator',
            password: await hashPassword(password),
            created_time: now,
            updated_time: now,
          })
          .onConflict((oc) => oc.column('username').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (user) await trx.insertInto('user_roles').values({ user_id: user.id, role: 'admin', tenant_id: null }).execute();
        // A fresh install: without a tenant the administrator can make no user, number or plan (docs/api.md, "Roles and tenants").
        const anyTenant = await trx.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
        if (!anyTenant) await trx.insertInto('tenants').values({ name: defaultTenantName(config.defaultLanguage), language: '', created_time: now }).execute();
      });
    }
    return { ctx, ...(generatedAdminPassword && { generatedAdminPassword }), warm: () => scripts.warm(), close };
  } catch (error) {
    await close();
    throw error;
  }
}
