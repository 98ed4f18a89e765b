import { rolloutCurrentSchema, rolloutPatchSchema, rolloutSchema } from '@voxplan/contracts';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { visualPlansResource } from '../visual-plans/visual-plans.resource.ts';
import { RolloutService } from './rollouts.service.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * A plan's staged rollout (docs/rollouts.md; started by `POST /visual-plans/:id/publish` with
 * `rollout`): read it and its history, change its share or pinned contacts, promote, roll back.
 */
export function registerRolloutRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const plans = new ResourceService<VisualPlan>(visualPlansResource, ctx);
  const service = new RolloutService(ctx, plans);
  const tags = ['visual-plans'];
  // As in the generic layer: a guest learns it may not write before it learns what to fix.
  const writeGuard = { preValidation: async (request: FastifyRequest) => void plans.assertWritable(scopeOf(request)) };

  routes.get(
    '/visual-plans/:id/rollout',
    { schema: { tags, description: 'The plan’s running rollout, or null.', params: idParams, response: { 200: rolloutCurrentSchema } } },
    async (request) => ({ rollout: await service.current(scopeOf(request), request.params.id) }),
  );

  routes.patch(
    '/visual-plans/:id/rollout',
    {
      ...writeGuard,
      schema: { tags, description: 'Changes the running rollout’s share, pinned contacts or automatic rollback (404 rollout_not_found when none runs).', params: idParams, body: rolloutPatchSchema, response: { 200: rolloutSchema } },
    },
    async (request) => service.change(scopeOf(request), request.params.id, request.body),
  );

  routes.post(
    '/visual-plans/:id/rollout/promote',
    { ...writeGuard, schema: { tags, description: 'Everyone meets the rollout’s new version: it becomes the published one.', params: idParams, response: { 200: rolloutSchema } } },
    async (request) => service.end(scopeOf(request), request.params.id, 'promoted'),
  );

  routes.post(
    '/visual-plans/:id/rollout/rollback',
    { ...writeGuard, schema: { tags, description: 'No one meets the rollout’s new version any more; the published version stays.', params: idParams, response: { 200: rolloutSchema } } },
    async (request) => service.end(scopeOf(request), request.params.id, 'rolled_back'),
  );

  routes.get(
    '/visual-plans/:id/rollouts',
    { schema: { tags, description: 'The plan’s rollouts, newest first.', params: idParams, response: { 200: z.array(rolloutSchema) } } },
    async (request) => service.history(scopeOf(request), request.params.id),
  );
}
