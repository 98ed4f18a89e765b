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
import { isSecondAiProviderOn } from '../ai/second-provider.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
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

/** The fields an administrator sees: secrets masked, the second AI provider's key only while its setting is on. */
function maskIntegrations(integrations: Integrations, isSecondAiOn = true): Integrations {
  const masked: Integrations = {};
  for (const [field, value] of Object.entries(integrations)) {
    if (value === undefined || (field === secondAiKey && !isSecondAiOn)) continue;
    masked[field as keyof Integrations] = isSecretField(field) ? maskSecret(value) : value;
  }
  return masked;
}

const secondAiKey = 'sippulse_ai_key' satisfies keyof Integrations;

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
      return maskIntegrations(readIntegrations(ctx, tenant.integrations), await isSecondAiProviderOn(ctx));
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
      // Read before the transaction: on SQLite a query outside it would wait for it.
      const isSecondAiOn = await isSecondAiProviderOn(ctx);
      if (!isSecondAiOn && request.body[secondAiKey] !== undefined) throw badRequest('second_ai_provider_disabled', [{ path: secondAiKey, message: 'the feature_second_ai_provider setting is off' }]);
      return ctx.db.transaction().execute(async (trx) => {
        const tenant = await loadTenant(trx, request.params.id);
        const current = readIntegrations(ctx, tenant.integrations);
        // Providers absent from the body are switched off; a masked secret sent back keeps its value.
        // While the second AI provider is off its key is hidden, so a body cannot mean to remove it: it stays for when it is on again.
        const next: Integrations = !isSecondAiOn && current[secondAiKey] !== undefined ? { [secondAiKey]: current[secondAiKey] } : {};
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
        const masked = maskIntegrations(next, isSecondAiOn);
        await recordAudit(trx, scope, [
          {
            action: 'update',
            entity: 'tenant_integrations',
            entityId: tenant.id,
            tenantId: tenant.id,
            before: maskIntegrations(current, isSecondAiOn),
            after: masked,
          },
        ]);
        return masked;
      });
    },
  );
}
