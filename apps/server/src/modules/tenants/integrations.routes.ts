import {
  type Integrations,
  integrationsInputSchema,
  integrationsSchema,
  isMaskedSecret,
  maskSecret,
  secretIntegrationFields,
} from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { decryptSecret, encryptSecret } from '../../lib/keys.ts';
import { recordAudit } from '../audit/audit.recorder.ts';
import { assertAllowed, scopeOf } from '../../plugins/auth.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
const isSecretField = (field: string): boolean => (secretIntegrationFields as readonly string[]).includes(field);

/** Stored as JSON with the secret fields encrypted; this reads it back in clear. */
export function readIntegrations(ctx: Pick<AppContext, 'keys'>, stored: string | null): Integrations {
  if (!stored) return {};
  const parsed = integrationsSchema.parse(JSON.parse(stored));
  const clear: Integrations = {};
  for (const [field, value] of Object.entries(parsed)) {
    if (value !== undefined) clear[field as keyof Integrations] = isSecretField(field) ? decryptSecret(ctx.keys.secretsKey, value) : value;
  }
  return clear;
}

/**
 * A tenant's integrations in clear (empty for a tenant that is gone): its Twilio SID and token for
 * SMS and call hooks. With the read cache they are read and decrypted again only after the tenants
 * table is written: every webhook request of a call checks its signature with the token, and the
 * read, the parse and the decryption were a tenth of a Twilio turn's CPU (bench:channels).
 */
export async function tenantIntegrations(ctx: Pick<AppContext, 'db' | 'keys'> & Partial<Pick<AppContext, 'readCache'>>, tenantId: number): Promise<Integrations> {
  const load = async () => {
    const tenant = await ctx.db.selectFrom('tenants').select('integrations').where('id', '=', tenantId).executeTakeFirst();
    return readIntegrations(ctx, tenant?.integrations ?? null);
  };
  return ctx.readCache ? ctx.readCache.read(`integrations\u0000${tenantId}`, ['tenants'], load) : load();
}

function maskIntegrations(integrations: Integrations): Integrations {
  const masked: Integrations = {};
  for (const [field, value] of Object.entries(integrations)) {
    if (value !== undefined) masked[field as keyof Integrations] = isSecretField(field) ? maskSecret(value) : value;
  }
  return masked;
}

export function registerIntegrationRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['tenants'];

  async function loadTenant(db: AppContext['db'], id: number) {
    const tenant = await db.selectFrom('tenants').select(['id', 'integrations']).where('id', '=', id).executeTakeFirst();
    if (!tenant) throw notFound('tenant_not_found');
    return tenant;
  }

  routes.get(
    '/tenants/:id/integrations',
    { schema: { tags, params, response: { 200: integrationsSchema } } },
    async (request) => {
      assertAllowed(scopeOf(request).actor, 'admin', false);
      const tenant = await loadTenant(ctx.db, request.params.id);
      return maskIntegrations(readIntegrations(ctx, tenant.integrations));
    },
  );

  routes.patch(
    '/tenants/:id/integrations',
    {
      preValidation: async (request) => assertAllowed(scopeOf(request).actor, 'admin', true),
      schema: { tags, params, body: integrationsInputSchema, response: { 200: integrationsSchema } },
    },
    async (request) => {
      const scope = scopeOf(request);
      return ctx.db.transaction().execute(async (trx) => {
        const tenant = await loadTenant(trx, request.params.id);
        const current = readIntegrations(ctx, tenant.integrations);
        // Providers absent from the body are switched off; a masked secret sent back keeps its value.
        const next: Integrations = {};
        for (const [field, value] of Object.entries(request.body)) {
          if (value === undefined) continue;
          const key = field as keyof Integrations;
          if (isSecretField(field) && isMaskedSecret(value)) {
            const kept = current[key];
            if (kept === undefined) throw badRequest('invalid_input', [{ path: field, message: 'required' }]);
            next[key] = kept;
          } else {
            next[key] = value;
          }
        }
        const stored: Integrations = {};
        for (const [field, value] of Object.entries(next)) {
          stored[field as keyof Integrations] = isSecretField(field) ? encryptSecret(ctx.keys.secretsKey, value) : value;
        }
        const text = Object.keys(stored).length > 0 ? JSON.stringify(stored) : null;
        await trx.updateTable('tenants').set({ integrations: text }).where('id', '=', tenant.id).execute();
        const masked = maskIntegrations(next);
        await recordAudit(trx, scope, [
          {
            action: 'update',
            entity: 'tenant_integrations',
            entityId: tenant.id,
            tenantId: tenant.id,
            before: maskIntegrations(current),
            after: masked,
          },
        ]);
        return masked;
      });
    },
  );
}
