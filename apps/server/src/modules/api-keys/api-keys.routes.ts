import { apiKeyCreatedSchema, apiKeyCreateSchema, apiKeySchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { randomToken, sha256 } from '../../lib/keys.ts';
import { nowIso } from '../../lib/time.ts';
import { formatApiKey, scopeOf, writerGuard } from '../../plugins/auth.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
const publicColumns = ['id', 'name', 'prefix', 'created_time', 'last_used_time'] as const;

/**
 * Credentials: each user's own API keys. The secret is shown once and only its hash is kept.
 * Guests read and never write, so they create no key (readonly_only); they may still revoke their
 * own (made before they became guests), which only takes access away (docs/decisions.md).
 */
export function registerApiKeyRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['credentials'];

  routes.get('/api-keys', { schema: { tags, response: { 200: z.array(apiKeySchema) } } }, async (request) => {
    const { actor } = scopeOf(request);
    return ctx.db.selectFrom('api_keys').select(publicColumns).where('user_id', '=', actor.userId).orderBy('id').execute();
  });

  routes.post('/api-keys', { ...writerGuard, schema: { tags, body: apiKeyCreateSchema, response: { 201: apiKeyCreatedSchema } } }, async (request, reply) => {
    const scope = scopeOf(request);
    const secret = randomToken(24);
    const created = await ctx.db.transaction().execute(async (trx) => {
      // The id is part of the key, so the row is written first and the prefix filled in after.
      const row = await trx
        .insertInto('api_keys')
        .values({
          user_id: scope.actor.userId,
          name: request.body.name,
          prefix: '',
          secret_hash: sha256(secret),
          created_time: nowIso(),
          last_used_time: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const key = formatApiKey(row.id, secret);
      const prefix = key.slice(0, key.indexOf('_', 4) + 5);
      const saved = await trx
        .updateTable('api_keys')
        .set({ prefix })
        .where('id', '=', row.id)
        .returning(publicColumns)
        .executeTakeFirstOrThrow();
      await recordAudit(trx, scope, [
        { action: 'create', entity: 'api_key', entityId: row.id, tenantId: null, before: null, after: saved },
      ]);
      return { ...saved, key };
    });
    return reply.status(201).send(created);
  });

  routes.delete('/api-keys/:id', { schema: { tags, params, response: { 204: z.null() } } }, async (request, reply) => {
    const scope = scopeOf(request);
    await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('api_keys')
        .select(publicColumns)
        .where('id', '=', request.params.id)
        .where('user_id', '=', scope.actor.userId)
        .executeTakeFirst();
      if (!row) throw notFound('api_key_not_found');
      await trx.deleteFrom('api_keys').where('id', '=', row.id).execute();
      await recordAudit(trx, scope, [{ action: 'delete', entity: 'api_key', entityId: row.id, tenantId: null, before: row, after: null }]);
    });
    return reply.status(204).send(null);
  });
}
