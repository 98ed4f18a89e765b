import { aclResource } from './acl/acl.resource.ts';
import { auditResource } from './audit/audit.resource.ts';
import { campaignsResource } from './campaigns/campaigns.resource.ts';
import { audiosResource } from './audios/audios.resource.ts';
import { savedRepliesResource } from './conversations/saved-replies.resource.ts';
import { configurationsResource } from './configurations/configurations.resource.ts';
import { dateRangesResource } from './date-ranges/date-ranges.resource.ts';
import { doNotCallResource } from './do-not-call/do-not-call.resource.ts';
import { destinationsResource } from './destinations/destinations.resource.ts';
import { holidaysResource } from './holidays/holidays.resource.ts';
import { whatsappTemplatesResource } from './whatsapp-templates/whatsapp-templates.resource.ts';
import { numbersResource } from './numbers/numbers.resource.ts';
import { webhookDeliveriesResource } from './plan-webhook/webhook-deliveries.resource.ts';
import { reportsResource } from './reports/reports.resource.ts';
import { defineTenantsResource } from './tenants/tenants.resource.ts';
import { usersResource } from './users/users.resource.ts';
import { visualPlansResource } from './visual-plans/visual-plans.resource.ts';
import type { ResourceDefinition, TableWithTenant } from '../resources/definition.ts';

/** A tenant in use cannot be removed: its resource asks which tables hold a tenant's rows, this list. */
const tenantsResource = defineTenantsResource(tenantOwnedTables);

/**
 * Every resource of the generic API: adding one is adding its definition here. It lists the
 * modules' resources, so it sits on the modules' floor; app.ts registers their routes.
 */
export function allResources(): ResourceDefinition[] {
  return [tenantsResource, usersResource, configurationsResource, auditResource, destinationsResource, aclResource, holidaysResource, dateRangesResource, audiosResource, webhookDeliveriesResource, visualPlansResource, reportsResource, numbersResource, savedRepliesResource, doNotCallResource, campaignsResource, whatsappTemplatesResource] as ResourceDefinition[];
}

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
