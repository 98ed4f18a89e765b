import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['sqlite', 'postgres']) });
const liveSchema = z.object({ status: z.literal('ok') });

/** Runs the most trivial query: answers its time in milliseconds, or throws when the database does not answer. */
export async function timeTrivialQuery(ctx: Pick<AppContext, 'db'>): Promise<number> {
  const started = performance.now();
  await sql`select 1`.execute(ctx.db);
  return performance.now() - started;
}

/**
 * Readiness (`/health`) and liveness (`/health/live`), docs/deployment.md: a load balancer sends
 * calls only to an instance that can serve them, which needs the database and the installation's
 * id (every call's start reads the licence); an orchestrator restarts only one whose process no
 * longer answers at all, which a database outage must not cause.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        description:
          'Readiness: 200 when this instance can serve calls (the database answers and the installation id is read), 503 otherwise. ' +
          'Point a load balancer here; see /health/live for liveness.',
        response: { 200: healthSchema, 503: healthSchema },
      },
    },
    async (_request, reply) => {
      try {
        await timeTrivialQuery(ctx);
        await ctx.license.installationId();
        return { status: 'ok' as const, database: ctx.dialect };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: ctx.dialect });
      }
    },
  );
  typed.get(
    '/health/live',
    {
      schema: {
        tags: ['system'],
        description: 'Liveness: 200 while the process answers HTTP, whatever the database does. Point a restart policy here, never at /health.',
        response: { 200: liveSchema },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
}
