import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['sqlite', 'postgres']) });

/** Runs the most trivial query: answers its time in milliseconds, or throws when the database does not answer. */
export async function timeTrivialQuery(ctx: Pick<AppContext, 'db'>): Promise<number> {
  const started = performance.now();
  await sql`select 1`.execute(ctx.db);
  return performance.now() - started;
}

export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/health',
    { schema: { tags: ['system'], response: { 200: healthSchema, 503: healthSchema } } },
    async (_request, reply) => {
      try {
        await timeTrivialQuery(ctx);
        return { status: 'ok' as const, database: ctx.dialect };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: ctx.dialect });
      }
    },
  );
}
