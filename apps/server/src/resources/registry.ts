import type { TableName } from '../db/schema.ts';
import { auditResource } from '../modules/audit/audit.resource.ts';
import { configurationsResource } from '../modules/configurations/configurations.resource.ts';
import { destinationsResource } from '../modules/destinations/destinations.resource.ts';
import { tenantsResource } from '../modules/tenants/tenants.resource.ts';
import { usersResource } from '../modules/users/users.resource.ts';
import type { ResourceDefinition } from './definition.ts';

/** Every resource of the generic API: adding one is adding its definition here. */
export function allResources(): ResourceDefinition[] {
  return [tenantsResource, usersResource, configurationsResource, auditResource, destinationsResource] as ResourceDefinition[];
}

/** Tables whose rows belong to a tenant: a tenant with rows in any of them is in use. */
export function tenantOwnedTables(): ('destinations')[] {
  return allResources()
    .filter((resource) => resource.tenantOwned)
    .map((resource) => resource.table as TableName as 'destinations');
}
