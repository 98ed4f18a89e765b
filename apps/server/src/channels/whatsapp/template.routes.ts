/**
 * `POST /numbers/{id}/whatsapp-templates/sync` (docs/channels-whatsapp.md, "Templates"): a user
 * syncs a WhatsApp number's templates from Meta now. Signed-in, a writer of the number's tenant
 * (guests are refused), audited as an update of the number's templates.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { scopeOf, tenantFilterOf, writerGuard } from '../../plugins/auth.ts';
import { syncTemplates } from './template-sync.ts';

const params = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
const syncAnswer = z.object({
  templates: z.number().int().describe('templates the number has now'),
  added: z.number().int(),
  updated: z.number().int(),
  removed: z.number().int().describe('templates Meta no longer lists, removed'),
});

export async function whatsappTemplateRoutes(api: FastifyInstance, options: { ctx: AppContext }): Promise<void> {
  const { ctx } = options;
  api.addHook('onRequest', (request) => api.authenticate(request));
  api.withTypeProvider<ZodTypeProvider>().post(
    '/numbers/:id/whatsapp-templates/sync',
    {
      ...writerGuard,
      schema: {
        tags: ['numbers'],
        params,
        description:
          'Reads the number’s message templates from Meta (GET /{waba-id}/message_templates, every page) and stores them: new ones added, changed ones updated, those Meta no longer lists removed. ' +
          '404 for another tenant’s number; 422 number_not_whatsapp, whatsapp_business_account_missing, whatsapp_incomplete (no token), whatsapp_meta_auth_refused (Meta refused the token), ' +
          'whatsapp_meta_refused (anything else Meta refused, its message in the details); 502 whatsapp_meta_unreachable. Read them at GET /whatsapp-templates. See docs/channels-whatsapp.md.',
        response: { 200: syncAnswer },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const tenantId = tenantFilterOf(scope);
      let query = ctx.db.selectFrom('numbers').select(['id', 'tenant_id']).where('id', '=', request.params.id);
      if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
      const number = await query.executeTakeFirst();
      // Another tenant's number is not found: nothing tells that it exists.
      if (!number) throw notFound('not_found');
      const result = await syncTemplates(ctx, number.id);
      await recordAudit(ctx.db, scope, [{ action: 'update', entity: 'whatsapp_templates', entityId: number.id, tenantId: number.tenant_id, before: null, after: result }]);
      return result;
    },
  );
}
