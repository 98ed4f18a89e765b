import type { Database, TableName } from '../db/schema.ts';
import { aclResource } from '../modules/acl/acl.resource.ts';
import { auditResource } from '../modules/audit/audit.resource.ts';
import { campaignsResource } from '../modules/campaigns/campaigns.resource.ts';
import { audiosResource } from '../modules/audios/audios.resource.ts';
import { savedRepliesResource } from '../modules/conversations/saved-replies.resource.ts';
import { configurationsResource } from '../modules/configurations/configurations.resource.ts';
import { dateRangesResource } from '../modules/date-ranges/date-ranges.resource.ts';
import { doNotCallResource } from '../modules/do-not-call/do-not-call.resource.ts';
import { destinationsResource } from '../modules/destinations/destinations.resource.ts';
import { holidaysResource } from '../modules/holidays/holidays.resource.ts';
import { whatsappTemplatesResource } from '../modules/whatsapp-templates/whatsapp-templates.resource.ts';
import { numbersResource } from '../modules/numbers/numbers.resource.ts';
import { webhookDeliveriesResource } from '../modules/plan-webhook/webhook-deliveries.resource.ts';
import { reportsResource } from '../modules/reports/reports.resource.ts';
import { tenantsResource } from '../modules/tenants/tenants.resource.ts';
import { usersResource } from '../modules/users/users.resource.ts';
import { visualPlansResource } from '../modules/visual-plans/visual-plans.resource.ts';
import type { ResourceDefinition } from './definition.ts';

/** Every resource of the generic API: adding one is adding its definition here. */
export function allResources(): ResourceDefinition[] {
  return [tenantsResource, usersResource, configurationsResource, auditResource, destinationsResource, aclResource, holidaysResource, dateRangesResource, audiosResource, webhookDeliveriesResource, visualPlansResource, reportsResource, numbersResource, savedRepliesResource, doNotCallResource, campaignsResource, whatsappTemplatesResource] as ResourceDefinition[];
}

type TableWithTenant = { [T in TableName]: Database[T] extends { tenant_id: number } ? T : never }[TableName];

/**
 * Tables whose rows are a tenant's data: a tenant with rows in any of them is in use. The audit
 * log is left out: it is the history of what happened in a tenant (its creation included). The
 * tenant's calls and chats are its data, read-only as their reports are.
 */
export function tenantOwnedTables(): TableWithTenant[] {
  return [
    ...allResources()
      .filter((resource) => resource.tenantOwned && !resource.readOnly)
      .map((resource) => resource.table as TableWithTenant),
    'sessions',
    'call_reports',
  ];
}
