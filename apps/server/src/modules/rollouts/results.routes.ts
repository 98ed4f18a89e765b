import { rolloutResultsQuerySchema, rolloutResultsSchema, type RolloutResults } from '@voxplan/contracts';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext, Scope } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { localeOf } from '../../plugins/errors.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { visualPlansResource } from '../visual-plans/visual-plans.resource.ts';
import { rolloutResults } from './results.ts';
import { presentRollout, type RolloutRow } from './rollout-rows.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * The rollout a results request names: `rolloutId` of the plan, else its running one, else its
 * newest. `404 rollout_not_found` when there is none.
 */
async function rolloutOf(ctx: AppContext, plans: ResourceService<VisualPlan>, scope: Scope, planId: number, rolloutId: number | undefined): Promise<RolloutRow> {
  plans.assertReadable(scope);
  // Through the plans' resource: tenant scope and roles as reading the plan.
  await plans.findRow(ctx.db, scope, planId);
  const query = ctx.db.selectFrom('plan_rollouts').selectAll().where('plan_id', '=', planId);
  const row =
    rolloutId !== undefined
      ? await query.where('id', '=', rolloutId).executeTakeFirst()
      : ((await query.where('state', '=', 'running').executeTakeFirst()) ?? (await query.orderBy('started_time', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()));
  if (!row) throw notFound('rollout_not_found');
  return row;
}

/** `GET /visual-plans/:id/rollout/results` (docs/rollouts.md, "Results per version"). */
export function registerRolloutResultsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const plans = new ResourceService<VisualPlan>(visualPlansResource, ctx);
  routes.get(
    '/visual-plans/:id/rollout/results',
    {
      schema: {
        tags: ['visual-plans'],
        description:
          'A rollout’s results per version, the base version first: sessions, retained, routed and abandoned (as the dashboard counts them), converted ' +
          '(sessions that reached a goal block) and goal rate, median duration, failures (engine error or failed hand-off), drop-off per block; and the ' +
          'goal rates compared by a two-sided two-proportion z-test, once each version has 30 sessions with 5 converted and 5 not (`enough_data`). ' +
          '`rollout_id` names one of the plan’s rollouts; without it, the running one, else the newest. 404 rollout_not_found when the plan has none.',
        params: idParams,
        querystring: rolloutResultsQuerySchema,
        response: { 200: rolloutResultsSchema },
      },
    },
    async (request): Promise<RolloutResults> => {
      const row = await rolloutOf(ctx, plans, scopeOf(request), request.params.id, request.query.rollout_id);
      const [rollout, results] = await Promise.all([presentRollout(ctx.db, row), rolloutResults(ctx.db, ctx.dialect, row, localeOf(request))]);
      return { rollout, ...results };
    },
  );
}
