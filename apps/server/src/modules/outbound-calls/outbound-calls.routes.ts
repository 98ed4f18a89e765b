/**
 * `POST /outbound-calls` and `GET /outbound-calls/{session_id}` (docs/outbound.md): one call the
 * plan places, for a user or an API key of the tenant; guests read and never place calls.
 */
import { type AnsweredBy, type OutboundCall, outboundCallAcceptedSchema, outboundCallCreateSchema, outboundCallSchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext, Scope } from '../../context.ts';
import { badRequest, forbidden, notFound } from '../../errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { judgeAddress } from '../../outbound/address-policy.ts';
import { readAddressPolicy } from '../../outbound/settings.ts';
import { scopeOf, tenantFilterOf, writerGuard } from '../../plugins/auth.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { findReport } from '../sessions/call-reports.repository.ts';
import { tenantDialingDefaults } from '../tenants/tenant-dialing.ts';
import { findCall, type OutboundCallRow } from './outbound-calls.repository.ts';

const sessionParams = z.object({ session_id: z.string().min(1).max(200) });

/** The tenant a call is placed for: the caller's, which an admin names with X-Tenant-Id. */
function tenantOf(scope: Scope): number {
  if (scope.tenantId === null) throw scope.actor.role === 'admin' ? badRequest('no_tenant_provided') : forbidden('forbidden_tenant');
  return scope.tenantId;
}

/**
 * `status_url` is https, or http to an address the outbound policy opens (loopback or a private
 * range, by the general settings): the delivery itself is judged again on every connection.
 */
async function checkStatusUrl(ctx: AppContext, url: string): Promise<void> {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'https:') return;
  const host = hostname.replace(/^\[|\]$/g, '');
  // An address the policy opens; a name is taken over https only, as its address may change.
  if (judgeAddress(host === 'localhost' ? '127.0.0.1' : host, await readAddressPolicy(ctx.db)).allowed) return;
  throw badRequest('invalid_input', [{ path: 'status_url', message: 'https, or http to an address the outbound settings allow' }]);
}

const answeredByOf = (value: string | null): AnsweredBy | null => (value === 'human' || value === 'machine' || value === 'unknown' ? value : null);

async function present(ctx: AppContext, row: OutboundCallRow): Promise<OutboundCall> {
  const report = row.state === 'ended' ? ((await findReport(ctx.db, row.session_id)) ?? null) : null;
  return {
    session_id: row.session_id,
    tenant_id: row.tenant_id,
    state: row.state,
    from: row.caller,
    to: row.called,
    plan_id: row.plan_id,
    plan_name: row.plan_name,
    machine_detection: row.machine_detection === 1,
    campaign_id: row.campaign_id,
    dial_status: row.dial_status as OutboundCall['dial_status'],
    answered_by: answeredByOf(row.answered_by),
    created_time: row.created_time,
    ended_time: row.ended_time,
    report: report && { ...report, campaign_id: row.campaign_id },
  };
}

export function registerOutboundCallRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/outbound-calls',
    {
      ...writerGuard,
      schema: {
        tags: ['outbound-calls'],
        description:
          'Places a call that runs a plan (docs/outbound.md). A WhatsApp `from` rings nobody: its chat plan starts at once and its first message ' +
          '(a template, outside the customer’s window) opens the conversation; 202 once Meta took it or refused it (the outcome then `failed`), ' +
          '429 whatsapp_daily_limit_reached past the number’s daily reach (docs/outbound.md, "WhatsApp"). ' +
          'From the tenant’s number `from` to `to` (any form; read with the tenant’s country), ' +
          'with `variables` for the plan, machine detection, and an optional `status_url` for the signed outcome. Answers 202 with the session’s id ' +
          'once the provider has taken the call; GET /outbound-calls/{session_id} answers its state. A number the tenant already has a call to, queued, ' +
          'ringing or in progress (a campaign’s or another of this API’s), answers 409 outbound_number_in_call. Guests are refused (readonly_only).',
        body: outboundCallCreateSchema,
        response: { 202: outboundCallAcceptedSchema },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const tenantId = tenantOf(scope);
      const body = request.body;
      const { country } = await tenantDialingDefaults(ctx.db, tenantId);
      const to = toE164(body.to, country || undefined);
      if (to === null) throw badRequest('invalid_phone_number', [{ path: 'to', message: `${body.to} is not a phone number` }]);
      const from = toE164(body.from) ?? body.from;
      if (body.status_url !== undefined) await checkStatusUrl(ctx, body.status_url);
      const placed = await ctx.outboundCalls.place({
        tenant_id: tenantId,
        from,
        to,
        variables: body.variables,
        machine_detection: body.machine_detection,
        ...(body.status_url !== undefined && { status_url: body.status_url }),
        ...(body.plan_id !== undefined && { plan_id: body.plan_id }),
      });
      await recordAudit(ctx.db, scope, [
        {
          action: 'create',
          entity: 'outbound_call',
          entityId: placed.session_id,
          tenantId,
          before: null,
          after: { from, to, machine_detection: body.machine_detection, plan_id: body.plan_id ?? null, status_url: body.status_url ?? null },
        },
      ]);
      return reply.status(202).send(placed);
    },
  );

  routes.get(
    '/outbound-calls/:session_id',
    {
      schema: {
        tags: ['outbound-calls'],
        description: 'Where a placed call is: queued, dialing, in_progress or ended, its dial status, who answered (answered_by), and its report once ended.',
        params: sessionParams,
        response: { 200: outboundCallSchema },
      },
    },
    async (request) => {
      const tenant = tenantFilterOf(scopeOf(request));
      const row = await findCall(ctx.db, request.params.session_id);
      if (!row || (tenant !== undefined && row.tenant_id !== tenant)) throw notFound('session_not_found');
      return present(ctx, row);
    },
  );
}
