import { idSchema, statsDailySchema, statsHandOffsSchema, statsPeriodQuerySchema, statsPlanDetailSchema, statsPlansSchema, statsSummarySchema } from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { scopeOf, tenantFilterOf } from '../../plugins/auth.ts';
import { handOffStats } from './handoff-stats.ts';
import { periodOf, type StatsPeriod, StatsService } from './stats.service.ts';

const instant = z.iso.datetime({ offset: true });

/**
 * The contract's period, as a query string carries it: instants with Z or an offset, and the plans
 * as ids separated by commas (`plan_id=3,7`).
 */
const periodQuery = statsPeriodQuerySchema.extend({
  from: instant.describe('start of the period, inclusive: ISO 8601 instant with Z or an offset, taken at the start of its hour'),
  to: instant.describe('end of the period, exclusive; after from, at most 400 days later'),
  tz: statsPeriodQuerySchema.shape.tz.describe('IANA time zone the days of /stats/daily begin in (default UTC)'),
  plan_id: z
    .string()
    .regex(/^\d{1,10}(,\d{1,10}){0,99}$/, 'expected plan ids separated by commas')
    .transform((text) => text.split(',').map(Number))
    .pipe(z.array(idSchema))
    .optional()
    .describe('only these plans: ids separated by commas'),
});
const planPeriodQuery = periodQuery.omit({ plan_id: true });
const planDetailQuery = planPeriodQuery.extend({
  plan_version: z.coerce.number().int().positive().max(2 ** 31 - 1).optional().describe('only the sessions that met this version of the plan: started in it, or entered it through call_plan'),
});
const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * The period statistics (docs/api.md, "Statistics"): read by every signed-in user, of their
 * tenant; the administrator's of every tenant, or of `X-Tenant-Id`'s. The live feed and the
 * system status are in stats-live.routes.ts and its neighbours.
 */
export function registerStatsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const service = new StatsService(ctx.db, ctx.dialect);
  const tags = ['stats'];
  const scoped = (request: FastifyRequest, query: z.output<typeof planPeriodQuery> & { plan_id?: number[] | undefined }): [number | undefined, StatsPeriod] => [
    tenantFilterOf(scopeOf(request)),
    periodOf(query),
  ];

  routes.get(
    '/stats/summary',
    { schema: { tags, querystring: periodQuery, response: { 200: statsSummarySchema }, description: 'The figures of a period, from the hourly rollups' } },
    async (request) => service.summary(...scoped(request, request.query)),
  );

  routes.get(
    '/stats/daily',
    { schema: { tags, querystring: periodQuery, response: { 200: statsDailySchema }, description: 'The figures of each day of the period in tz, days without sessions included' } },
    async (request) => service.daily(...scoped(request, request.query)),
  );

  routes.get(
    '/stats/plans',
    { schema: { tags, querystring: periodQuery, response: { 200: statsPlansSchema }, description: 'The figures per plan the sessions started in, most sessions first; a plan with a running rollout is listed even without a session started in it' } },
    async (request) => service.plans(...scoped(request, request.query)),
  );

  routes.get(
    '/stats/plans/:id',
    {
      schema: {
        tags,
        params: idParams,
        querystring: planDetailQuery,
        response: { 200: statsPlanDetailSchema },
        description:
          "A plan's figures, its blocks entered and ended at (drop-off), the keys pressed per menu, and the versions its sessions met in the period (started in, or entered through call_plan); " +
          'plan_version: of the sessions that met that version only, however they came (counted from the reports, docs/rollouts.md); of a session that entered it through call_plan, its own blocks and keys only',
      },
    },
    async (request) => {
      const [tenantId, period] = scoped(request, request.query);
      return service.plan(tenantId, request.params.id, period, request.query.plan_version);
    },
  );

  routes.get(
    '/stats/handoffs',
    {
      schema: {
        tags,
        querystring: planPeriodQuery,
        response: { 200: statsHandOffsSchema },
        description: 'The chats handed to people in the period, and those waiting or held now, per queue and per agent (docs/handoff.md, "Outcomes")',
      },
    },
    async (request) => {
      const [tenantId] = scoped(request, request.query);
      // Stored instants are ISO text in UTC: compared as such.
      return handOffStats(ctx.db, tenantId, new Date(request.query.from).toISOString(), new Date(request.query.to).toISOString());
    },
  );
}
