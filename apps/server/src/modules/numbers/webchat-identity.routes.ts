import { maskSecret } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { encryptSecret, randomToken } from '../../lib/keys.ts';
import { nowIso } from '../../lib/time.ts';
import { scopeOf, tenantFilterOf, writerGuard } from '../../plugins/auth.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * A web chat number's identity key (docs/channels-webchat.md, "The site's signed-in user"): the
 * secret the site signs its users' ids with. Made here, stored encrypted, and answered once, as API
 * keys are: the number's page shows it in full only then, masked after. A new one replaces the old,
 * whose signatures stop being accepted at once.
 */
export function registerWebchatIdentityRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/numbers/:id/webchat-identity-secret',
    {
      // The role before the path's id, as every write: a guest learns it may not write, not what to fix.
      ...writerGuard,
      schema: {
        tags: ['numbers'],
        params,
        description:
          'Makes a new identity key for a web chat number and answers it once, in full (GET /numbers shows it masked). The site signs its user’s id with it: ' +
          'HMAC-SHA256(id, key) in hex. The previous key stops working. Guests are refused (readonly_only). See docs/channels-webchat.md.',
        response: { 200: z.object({ webchat_identity_secret: z.string() }) },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const tenantId = tenantFilterOf(scope);
      const secret = `wcid_${randomToken(32)}`;
      await ctx.db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('numbers').select(['id', 'tenant_id', 'webchat_identity_secret']).where('id', '=', request.params.id).where('provider', '=', 'webchat');
        if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
        const number = await query.executeTakeFirst();
        // Another tenant's number, or one that is no web chat, is not found: nothing tells that it exists.
        if (!number) throw notFound('not_found');
        await trx
          .updateTable('numbers')
          .set({ webchat_identity_secret: encryptSecret(ctx.keys.secretsKey, secret), updated_time: nowIso() })
          .where('id', '=', number.id)
          .execute();
        const masked = (value: string | null) => ({ webchat_identity_secret: value === null ? '' : '••••' });
        await recordAudit(trx, scope, [
          { action: 'update', entity: 'number', entityId: number.id, tenantId: number.tenant_id, before: masked(number.webchat_identity_secret), after: { webchat_identity_secret: maskSecret(secret) } },
        ]);
      });
      return { webchat_identity_secret: secret };
    },
  );
}
