/**
 * What the plans API's tests share (visual-plans*.test.ts): plans' content made short, the
 * invalid_plan answer read, and a client calling as one member of one tenant of the file's server.
 */
import type { VisualPlan, VisualPlanDocument, VisualPlanPublished, VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { uploadCall } from './audio-fixtures.ts';
import { createTenantMember, errorOf, q, serverForFile, type TenantMember, type TestServer } from './harness.ts';

export type Body = Record<string, unknown>;
export interface AuditEntry {
  id: number;
  action: string;
  entity: string;
  entity_id: string;
  tenant_id: number | null;
  user_id: number | null;
  before: Body | null;
  after: Body | null;
}
export interface Issue {
  code: string;
  message: string;
  node_id?: string;
  edge_id?: string;
  path: string;
}

export const node = (id: string, type: string, data: Body = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
export const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });
/** A plan's content: nodes and edges in the current format, with the default settings. */
export const content = (nodes: Body[], edges: Body[] = []) => ({ format_version: 1, nodes, edges });
/** Start, a message, hang up: valid and without warnings. */
export const greeting = (text = 'Hello') =>
  content([node('start', 'start'), node('hello', 'play_message', { voice_text: text }), node('end', 'hangup')], [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')]);

export const issues = (response: LightMyRequestResponse): Issue[] => (errorOf(response).details ?? []) as Issue[];
export const brief = (list: Issue[]) => list.map(({ code, node_id, edge_id, path }) => ({ code, ...(node_id && { node_id }), ...(edge_id && { edge_id }), path }));

export function expectPlanErrors(response: LightMyRequestResponse, expected: Array<Partial<Issue>>) {
  expect(response.statusCode, response.body).toBe(400);
  expect(errorOf(response).code).toBe('invalid_plan');
  expect(brief(issues(response))).toEqual(expect.arrayContaining(expected.map((issue) => expect.objectContaining(issue))));
}

export function expectCode(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorOf(response).code).toBe(code);
}

/**
 * The file's server (serverForFile), and what its tests call it with: `client` for a member,
 * `newTenant` for a tenant with a member of its own, the audit entries after a given one.
 */
export function plansServer() {
  const suite = serverForFile();
  let serial = 0;
  const next = () => (serial += 1);

  /** Calls as one member of one tenant. */
  function client(member: TenantMember) {
    const call = (options: Parameters<TestServer['call']>[0]) => suite.server.call({ ...options, token: member.token });
    const api = {
      member,
      call,
      async create(name = `Plan ${next()}`): Promise<VisualPlan> {
        const response = await call({ method: 'POST', url: '/visual-plans', payload: { name } });
        expect(response.statusCode, response.body).toBe(201);
        return response.json<VisualPlan>();
      },
      save: (id: number, base: number, body: Body) => call({ method: 'PUT', url: `/visual-plans/${id}/document`, payload: { base_version: base, ...body } }),
      async saved(id: number, base: number, body: Body): Promise<VisualPlanDocument> {
        const response = await api.save(id, base, body);
        expect(response.statusCode, response.body).toBe(200);
        return response.json<VisualPlanDocument>();
      },
      /** A new plan whose draft is `body`. */
      async planWith(body: Body, name?: string): Promise<VisualPlanDocument> {
        const plan = await api.create(name);
        return api.saved(plan.id, plan.version, body);
      },
      async document(id: number): Promise<VisualPlanDocument> {
        const response = await call({ method: 'GET', url: `/visual-plans/${id}/document` });
        expect(response.statusCode, response.body).toBe(200);
        return response.json<VisualPlanDocument>();
      },
      publish: (id: number, base: number) => call({ method: 'POST', url: `/visual-plans/${id}/publish`, payload: { base_version: base } }),
      async published(id: number, base: number): Promise<VisualPlanPublished> {
        const response = await api.publish(id, base);
        expect(response.statusCode, response.body).toBe(200);
        return response.json<VisualPlanPublished>();
      },
      async versions(id: number): Promise<VisualPlanVersion[]> {
        const response = await call({ method: 'GET', url: `/visual-plans/${id}/versions` });
        expect(response.statusCode, response.body).toBe(200);
        return response.json<VisualPlanVersion[]>();
      },
      async destination(): Promise<number> {
        const n = next();
        const response = await call({ method: 'POST', url: '/destinations', payload: { name: `Desk ${n}`, kind: 'voice', uri: `sip:desk-${n}@pbx.example` } });
        expect(response.statusCode, response.body).toBe(201);
        return response.json<{ id: number }>().id;
      },
      async dateRange(): Promise<number> {
        const response = await call({ method: 'POST', url: '/date-ranges', payload: { name: `Hours ${next()}`, time_zone: 'UTC' } });
        expect(response.statusCode, response.body).toBe(201);
        return response.json<{ id: number }>().id;
      },
      async audio(): Promise<number> {
        const response = await call(uploadCall({ name: `Greeting ${next()}` }));
        expect(response.statusCode, response.body).toBe(201);
        return response.json<{ id: number }>().id;
      },
    };
    return api;
  }

  const newTenant = async () => client(await createTenantMember(suite.server, suite.admin, `plans-${next()}`));

  async function auditAfter(id: number): Promise<AuditEntry[]> {
    const response = await suite.server.call({ method: 'GET', url: `/audit?${q('filter', { where: { id: { gt: id } }, order: ['id ASC'] })}`, token: suite.admin });
    return response.json<AuditEntry[]>();
  }
  async function lastAuditId(): Promise<number> {
    const response = await suite.server.call({ method: 'GET', url: `/audit?${q('filter', { order: ['id DESC'], limit: 1 })}`, token: suite.admin });
    return response.json<AuditEntry[]>()[0]?.id ?? 0;
  }

  return { suite, next, client, newTenant, auditAfter, lastAuditId };
}

/** Calls as one member of one tenant (plansServer's `client`). */
export type Client = ReturnType<ReturnType<typeof plansServer>['client']>;
