import {
  type VisualPlan,
  visualPlanDocumentSchema,
  visualPlanDuplicateSchema,
  visualPlanExportQuery,
  visualPlanExportSchema,
  visualPlanImportSchema,
  visualPlanPublishedSchema,
  visualPlanPublishSchema,
  visualPlanRestoreSchema,
  visualPlanSaveAsSchema,
  visualPlanSaveSchema,
  visualPlanVersionDocumentSchema,
  visualPlanVersionParams,
  visualPlanVersionSchema,
  visualPlanDraftSchema,
  visualPlanDraftDocumentSchema,
} from '@voxplan/contracts/visual-plan';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { visualPlansResource } from './visual-plans.resource.ts';
import { VisualPlanService } from './visual-plans.service.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/** Plan documents are larger than other bodies: up to 2,000 blocks with their texts (bench:editor's 2,000-block plan is 650 KB). */
const DOCUMENT_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * The plan calls besides the generic ones (docs/api.md, "Visual plans"): the draft with its
 * version, publishing and the published versions, save as, duplicate, import and export.
 */
export function registerVisualPlanRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const plans = new ResourceService<VisualPlan>(visualPlansResource, ctx);
  const service = new VisualPlanService(ctx, plans);
  const tags = ['visual-plans'];
  // As in the generic layer: a guest learns it may not write before it learns what to fix.
  const writeGuard = { preValidation: async (request: FastifyRequest) => void plans.assertWritable(scopeOf(request)) };

  routes.get('/visual-plans/:id/document', { schema: { tags, params: idParams, response: { 200: visualPlanDocumentSchema } } }, async (request) =>
    service.document(scopeOf(request), request.params.id),
  );

  routes.put(
    '/visual-plans/:id/document',
    { ...writeGuard, bodyLimit: DOCUMENT_BODY_LIMIT, schema: { tags, params: idParams, body: visualPlanSaveSchema, response: { 200: visualPlanDocumentSchema } } },
    async (request) => service.save(scopeOf(request), request.params.id, request.body),
  );

  routes.post(
    '/visual-plans/:id/publish',
    { ...writeGuard, schema: { tags, params: idParams, body: visualPlanPublishSchema, response: { 200: visualPlanPublishedSchema } } },
    async (request) => service.publish(scopeOf(request), request.params.id, request.body.base_version, request.body.rollout),
  );

  routes.get('/visual-plans/:id/versions', { schema: { tags, params: idParams, response: { 200: z.array(visualPlanVersionSchema) } } }, async (request) =>
    service.versions(scopeOf(request), request.params.id),
  );

  routes.get(
    '/visual-plans/:id/versions/:version',
    { schema: { tags, params: visualPlanVersionParams, response: { 200: visualPlanVersionDocumentSchema } } },
    async (request) => service.version(scopeOf(request), request.params.id, request.params.version),
  );

  routes.post(
    '/visual-plans/:id/versions/:version/restore',
    { ...writeGuard, schema: { tags, params: visualPlanVersionParams, body: visualPlanRestoreSchema, response: { 200: visualPlanDocumentSchema } } },
    async (request) => service.restore(scopeOf(request), request.params.id, request.params.version, request.body.base_version),
  );

  routes.get('/visual-plans/:id/drafts', { schema: { tags, params: idParams, response: { 200: z.array(visualPlanDraftSchema) } } }, async (request) =>
    service.drafts(scopeOf(request), request.params.id),
  );

  routes.get(
    '/visual-plans/:id/drafts/:version',
    { schema: { tags, params: visualPlanVersionParams, response: { 200: visualPlanDraftDocumentSchema } } },
    async (request) => service.draft(scopeOf(request), request.params.id, request.params.version),
  );

  routes.post(
    '/visual-plans/:id/drafts/:version/restore',
    { ...writeGuard, schema: { tags, params: visualPlanVersionParams, body: visualPlanRestoreSchema, response: { 200: visualPlanDocumentSchema } } },
    async (request) => service.restoreDraft(scopeOf(request), request.params.id, request.params.version, request.body.base_version),
  );

  routes.post(
    '/visual-plans/:id/save-as',
    { ...writeGuard, bodyLimit: DOCUMENT_BODY_LIMIT, schema: { tags, params: idParams, body: visualPlanSaveAsSchema, response: { 201: visualPlanDocumentSchema } } },
    async (request, reply) => reply.status(201).send(await service.saveAs(scopeOf(request), request.params.id, request.body)),
  );

  routes.post(
    '/visual-plans/:id/duplicate',
    { ...writeGuard, schema: { tags, params: idParams, body: visualPlanDuplicateSchema.nullish(), response: { 201: visualPlanDocumentSchema } } },
    async (request, reply) => reply.status(201).send(await service.duplicate(scopeOf(request), request.params.id, request.body?.name)),
  );

  routes.post(
    '/visual-plans/import',
    { ...writeGuard, bodyLimit: DOCUMENT_BODY_LIMIT, schema: { tags, body: visualPlanImportSchema, response: { 201: visualPlanDocumentSchema } } },
    async (request, reply) => reply.status(201).send(await service.importPlan(scopeOf(request), request.body)),
  );

  routes.get(
    '/visual-plans/:id/export',
    { schema: { tags, params: idParams, querystring: visualPlanExportQuery, response: { 200: visualPlanExportSchema } } },
    async (request, reply) => {
      const file = await service.exportPlan(scopeOf(request), request.params.id, request.query.version);
      return reply.header('content-disposition', contentDisposition(`${file.name}.json`)).send(file);
    },
  );
}
