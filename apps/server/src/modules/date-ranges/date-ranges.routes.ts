import { type DateRange, dateRangePreviewSchema, dateRangeStatusQuerySchema, dateRangeStatusSchema, exceptionOrderProblems } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { assertAllowed, scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { dateRangesResource } from './date-ranges.resource.ts';
import { scheduleStatus } from './date-ranges.service.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * GET /date-ranges/{id}/status?at=: where an instant (default now) falls in a saved range.
 * POST /date-ranges/preview: the same for the unsaved range of a form.
 */
export function registerDateRangeRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // Reading through the resource layer applies its roles and tenant scope: another tenant's id is 404.
  const ranges = new ResourceService<DateRange>(dateRangesResource, ctx);
  const tags = ['date-ranges'];

  routes.get(
    '/date-ranges/:id/status',
    { schema: { tags, params: idParams, querystring: dateRangeStatusQuerySchema, response: { 200: dateRangeStatusSchema } } },
    async (request) => {
      const range = await ranges.get(scopeOf(request), request.params.id);
      return scheduleStatus(ctx.db, range, request.query.at ? new Date(request.query.at) : new Date());
    },
  );

  routes.post(
    '/date-ranges/preview',
    {
      // Whoever reads date ranges may preview one; it writes nothing.
      preValidation: async (request) => assertAllowed(scopeOf(request).actor, dateRangesResource.read, false),
      schema: { tags, body: dateRangePreviewSchema, response: { 200: dateRangeStatusSchema } },
    },
    async (request) => {
      const { at, ...range } = request.body;
      const misordered = exceptionOrderProblems(range.exceptions);
      if (misordered.length > 0) throw badRequest('initial_date_after_final_date', misordered);
      return scheduleStatus(ctx.db, range, at ? new Date(at) : new Date());
    },
  );
}
