import { type Kysely, type Migration, Migrator } from 'kysely';
import type { DialectName } from './database.ts';
import { installWriteNotifications } from './write-notifications.ts';
import * as initial from './migrations/0001-initial.ts';
import * as sortIndexes from './migrations/0002-sort-indexes.ts';
import * as aclAndHolidays from './migrations/0003-acl-and-holidays.ts';
import * as dateRanges from './migrations/0004-date-ranges.ts';
import * as audios from './migrations/0005-audios.ts';
import * as webhookDeliveries from './migrations/0006-webhook-deliveries.ts';
import * as visualPlans from './migrations/0007-visual-plans.ts';
import * as sessions from './migrations/0008-sessions.ts';
import * as numbers from './migrations/0009-numbers.ts';
import * as whatsappAppSecret from './migrations/0010-whatsapp-app-secret.ts';
import * as webchat from './migrations/0011-webchat.ts';
import * as statsRollups from './migrations/0012-stats-rollups.ts';
import * as retentionIndexes from './migrations/0013-retention-indexes.ts';
import * as license from './migrations/0014-license.ts';
import * as aiUsage from './migrations/0015-ai-usage.ts';
import * as tenantLanguage from './migrations/0016-tenant-language.ts';
import * as installation from './migrations/0017-installation.ts';
import * as sessionRefusals from './migrations/0018-session-refusals.ts';
import * as conversations from './migrations/0019-conversations.ts';
import * as planDrafts from './migrations/0020-plan-drafts.ts';
import * as conversationAttachments from './migrations/0021-conversation-attachments.ts';
import * as webchatCustomers from './migrations/0022-webchat-customers.ts';
import * as missedHandoffs from './migrations/0023-missed-handoffs.ts';
import * as agentWork from './migrations/0024-agent-work.ts';
import * as conversationDeadlines from './migrations/0025-conversation-deadlines.ts';
import * as outboundCalls from './migrations/0026-outbound-calls.ts';
import * as doNotCall from './migrations/0030-do-not-call.ts';
import * as tenantDialing from './migrations/0031-tenant-dialing.ts';
import * as campaigns from './migrations/0032-campaigns.ts';
import * as whatsappTemplates from './migrations/0033-whatsapp-templates.ts';
import * as whatsappTemplateSync from './migrations/0034-whatsapp-template-sync.ts';
import * as conversationTemplates from './migrations/0036-conversation-templates.ts';
import * as whatsappOutbound from './migrations/0037-whatsapp-outbound.ts';
import * as outboundOneCall from './migrations/0039-outbound-one-call.ts';
import * as planRollouts from './migrations/0040-plan-rollouts.ts';
import * as rolloutResults from './migrations/0041-rollout-results.ts';
import * as callReportPlans from './migrations/0042-call-report-plans.ts';
import type { Database } from './schema.ts';

/** Numbered migrations, applied in order at start. Add one line per new migration file. */
function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-initial': { up: initial.up(dialect) },
    '0002-sort-indexes': { up: sortIndexes.up },
    '0003-acl-and-holidays': { up: aclAndHolidays.up(dialect) },
    '0004-date-ranges': { up: dateRanges.up(dialect) },
    '0005-audios': { up: audios.up(dialect) },
    '0006-webhook-deliveries': { up: webhookDeliveries.up(dialect) },
    '0007-visual-plans': { up: visualPlans.up(dialect) },
    '0008-sessions': { up: sessions.up(dialect) },
    '0009-numbers': { up: numbers.up(dialect) },
    '0010-whatsapp-app-secret': { up: whatsappAppSecret.up },
    '0011-webchat': { up: webchat.up },
    '0012-stats-rollups': { up: statsRollups.up(dialect) },
    '0013-retention-indexes': { up: retentionIndexes.up },
    '0014-license': { up: license.up },
    '0015-ai-usage': { up: aiUsage.up },
    '0016-tenant-language': { up: tenantLanguage.up },
    '0017-installation': { up: installation.up },
    '0018-session-refusals': { up: sessionRefusals.up },
    '0019-conversations': { up: conversations.up(dialect) },
    '0020-plan-drafts': { up: planDrafts.up(dialect) },
    '0021-conversation-attachments': { up: conversationAttachments.up(dialect) },
    '0022-webchat-customers': { up: webchatCustomers.up },
    '0023-missed-handoffs': { up: missedHandoffs.up(dialect) },
    '0024-agent-work': { up: agentWork.up(dialect) },
    '0025-conversation-deadlines': { up: conversationDeadlines.up },
    '0026-outbound-calls': { up: outboundCalls.up },
    '0030-do-not-call': { up: doNotCall.up(dialect) },
    '0031-tenant-dialing': { up: tenantDialing.up },
    '0032-campaigns': { up: campaigns.up(dialect) },
    '0033-whatsapp-templates': { up: whatsappTemplates.up(dialect) },
    '0034-whatsapp-template-sync': { up: whatsappTemplateSync.up },
    '0036-conversation-templates': { up: conversationTemplates.up },
    '0037-whatsapp-outbound': { up: whatsappOutbound.up },
    '0039-outbound-one-call': { up: outboundOneCall.up },
    '0040-plan-rollouts': { up: planRollouts.up(dialect) },
    '0041-rollout-results': { up: rolloutResults.up },
    '0042-call-report-plans': { up: callReportPlans.up },
  };
}

export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrationsFor(dialect) },
    // Numbers are handed out to work in progress side by side, so a lower number may land after a
    // higher one; every migration only adds, so applying the late one then is safe.
    allowUnorderedMigrations: true,
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  // After every migration, so that the tables a migration adds announce their writes too.
  if (dialect === 'postgres') await installWriteNotifications(db);
}
