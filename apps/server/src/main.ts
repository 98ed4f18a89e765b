import pino from 'pino';
import { buildApp } from './app.ts';
import { startContext } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { createPlanWebhookDispatcher } from './modules/plan-webhook/plan-webhook.dispatcher.ts';
import type { ChannelListener } from './channels/channel.ts';
import { startChatSweeper } from './modules/sessions/chat-sweeper.ts';
import { startRetentionJob } from './modules/sessions/retention.ts';
import { coreCampaignCalls } from './modules/campaigns/campaign-calls.ts';
import { createDispatcher } from './modules/campaigns/dispatcher.ts';
import { startAutoRollback } from './modules/rollouts/auto-rollback.ts';

const config = loadConfig();
// One logger for the process: the database's and the instance bus's lines are JSON lines like the requests'.
const logger = pino({ level: config.logLevel });
const started = await startContext(config, { logger });
const app = await buildApp(started.ctx, { loggerInstance: logger });
const dispatcher = createPlanWebhookDispatcher(started.ctx, { log: app.log });
await started.warm();
const sweeper = startChatSweeper(started.ctx.sessions, {
  intervalMs: config.sessionSweepIntervalSeconds * 1000,
  onError: (error) => app.log.error({ err: error }, 'chat sweep failed'),
});
// Calls whose end never arrived are closed, and rows past the retention pruned (docs/sessions.md, "Retention").
const retention = startRetentionJob(started.ctx, {
  onError: (error) => app.log.error({ err: error }, 'retention pass failed'),
  log: (message) => app.log.warn(message),
});

// Running rollouts' automatic rule, each checked by one instance a minute (docs/rollouts.md).
const autoRollback = startAutoRollback(started.ctx, { onError: (error) => app.log.error({ err: error }, 'automatic rollback check failed') });

// Every instance dispatches the running campaigns; a restart resumes them (docs/campaigns.md).
const campaigns = createDispatcher(started.ctx, {
  calls: coreCampaignCalls(started.ctx),
  leaseS: config.campaignClaimLeaseSeconds,
  log: (message) => app.log.warn(message),
});

if (started.generatedAdminPassword) {
  // Shown once, on the start that created the administrator; only its hash is stored.
  process.stdout.write(
    `\n  Administrator: ${config.adminUsername}\n  Password:      ${started.generatedAdminPassword}\n` +
      `  Lost it? npm run set-password -- ${config.adminUsername}\n\n`,
  );
}

const listeners: ChannelListener[] = [];
const shutdownGraceMs = 10_000;
let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  // close() stops accepting connections and waits for in-flight requests before the database goes.
  // A keep-alive connection that finishes its request after close() began stays open unless
  // closed here, and past the grace period every connection is cut.
  const closed = app.close();
  const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => app.server.closeAllConnections(), shutdownGraceMs);
  // Webhook attempts in progress end within their own timeout (10 s) and are recorded before the
  // database closes; a delivery not yet due waits in the database for the next start.
  // Calls on a channel's listener (AGI) get the same grace; their sessions end as the caller hanging up.
  await Promise.all([closed, dispatcher.stop(), ...listeners.map((listener) => listener.close(shutdownGraceMs))]);
  clearInterval(sweep);
  clearTimeout(deadline);
  // A sweep or retention pass in progress finishes before the database goes.
  await Promise.all([sweeper.stop(), retention.stop(), campaigns.stop(), autoRollback.stop()]);
  await started.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
// The channels that listen outside HTTP (the AGI server), once the API they point to answers.
for (const channel of started.ctx.channels.all()) {
  const listener = await channel.listen?.(started.ctx, app.log);
  if (listener) listeners.push(listener);
}
// Fastify names each address it listens on; this is the line a person starting it looks for.
const database = config.databaseUrl ? `${started.ctx.dialect} (DATABASE_URL)` : `SQLite in ${config.dataDir}`;
app.log.info(`Voxplan is ready at ${config.publicUrl} on ${database}`);
dispatcher.start();
campaigns.start();
