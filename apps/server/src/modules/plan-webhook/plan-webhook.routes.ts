import { webhookDeliverySchema, webhookSecretSchema } from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext, Scope } from '../../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { assertAllowed, scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { maskFields, recordAudit } from '../../resources/audit.recorder.ts';
import { type DeliveryRow, findDelivery, findSecret, requeueDelivery } from './plan-webhook.repository.ts';
import { presentDelivery, rotateWebhookSecret, webhookSecretOf } from './plan-webhook.service.ts';
import { webhookDeliveriesResource } from './webhook-deliveries.resource.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/** The tenant a secret call is about: the one the caller works in, which an admin names with X-Tenant-Id. */
async function tenantOf(ctx: AppContext, scope: Scope): Promise<number> {
  if (scope.tenantId === null) throw scope.actor.role === 'admin' ? badRequest('no_tenant_provided') : forbidden('forbidden_tenant');
  const tenant = await ctx.db.selectFrom('tenants').select('id').where('id', '=', scope.tenantId).executeTakeFirst();
  if (!tenant) throw notFound('tenant_not_found');
  return tenant.id;
}

/** What the audit log keeps of a delivery: its state, not the event data it carries. */
const auditSnapshot = ({ payload: _payload, ...row }: DeliveryRow) => row;

/** The secret signs requests a receiver trusts: only those who may change the tenant's plans see it. */
const writerGuard = { preValidation: async (request: FastifyRequest) => assertAllowed(scopeOf(request).actor, 'member', true) };

export function registerPlanWebhookRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const deliveries = new ResourceService(webhookDeliveriesResource, ctx);

  routes.get(
    '/webhook-secret',
    {
      preValidation: async (request) => {
        // A guest reads the tenant's data, but the key would let it forge the tenant's events.
        if (scopeOf(request).actor.role === 'guest') throw forbidden('no_role_permission');
      },
      schema: { tags: ['webhooks'], response: { 200: webhookSecretSchema } },
    },
    async (request) => webhookSecretOf(ctx, ctx.db, await tenantOf(ctx, scopeOf(request))),
  );

  routes.post('/webhook-secret', { ...writerGuard, schema: { tags: ['webhooks'], response: { 200: webhookSecretSchema } } }, async (request) => {
    const scope = scopeOf(request);
    const tenantId = await tenantOf(ctx, scope);
    return ctx.db.transaction().execute(async (trx) => {
      const before = await findSecret(trx, tenantId);
      const rotated = await rotateWebhookSecret(ctx, trx, tenantId);
      await recordAudit(trx, scope, [
        {
          action: before ? 'update' : 'create',
          entity: 'webhook_secret',
          entityId: tenantId,
          tenantId,
          before: before ? maskFields(before, ['secret']) : null,
          after: maskFields(rotated, ['secret']),
        },
      ]);
      return rotated;
    });
  });

  routes.post(
    '/webhook-deliveries/:id/redeliver',
    { ...writerGuard, schema: { tags: ['webhook-deliveries'], params, response: { 200: webhookDeliverySchema } } },
    async (request) => {
      const scope = scopeOf(request);
      const { id } = request.params;
      // Answers 404 for a delivery outside the caller's tenant, as every generic call does.
      await deliveries.get(scope, id);
      return ctx.db.transaction().execute(async (trx) => {
        const before = await findDelivery(trx, id);
        if (!before) throw notFound();
        if (!(await requeueDelivery(trx, id, nowIso()))) throw conflict('webhook_delivery_in_progress');
        const after = (await findDelivery(trx, id))!;
        await recordAudit(trx, scope, [
          {
            action: 'update',
            entity: webhookDeliveriesResource.entity,
            entityId: id,
            tenantId: after.tenant_id,
            before: auditSnapshot(before),
            after: auditSnapshot(after),
          },
        ]);
        return presentDelivery(after);
      });
    },
  );
}
