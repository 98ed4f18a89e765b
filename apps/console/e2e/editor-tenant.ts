import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { afterAll, beforeAll } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, startConsole } from './harness.ts';

/**
 * What the plan editor's e2e files share (editor-work, editor-versions-and-room, plan-editor,
 * plan-editor-versions-and-guards): a console of their own, its admin, and a member of a tenant
 * of their own whose plans they make and read back through the API.
 */
export interface EditorTenant {
  harness: ConsoleHarness;
  admin: string;
  member: TenantMember;
}

export type Body = Record<string, unknown>;

/** A line of a plan's document, from a block's exit to another block. */
export const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

/** Starts the console and makes the tenant's member before the file's tests (its fields are set then), and closes it after them. */
export function editorTenant(tenantName: string): EditorTenant {
  const tenant = {} as EditorTenant;
  beforeAll(async () => {
    tenant.harness = await startConsole();
    tenant.admin = await tenant.harness.server.login();
    tenant.member = await createTenantMember(tenant.harness.server, tenant.admin, tenantName);
  });
  afterAll(() => tenant.harness.close());
  return tenant;
}

/** The plan's draft as stored, read as the tenant's member. */
export const draftOf = async (tenant: EditorTenant, id: number) =>
  (await tenant.harness.server.call({ method: 'GET', url: `/visual-plans/${id}/document`, token: tenant.member.token })).json<VisualPlanDocument>();
