import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['sqlite', 'postgres']) });

export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/health',
    { schema: { tags: ['system'], response: { 200: healthSchema, 503: healthSchema } } },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(ctx.db);
        return { status: 'ok' as const, database: ctx.dialect };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: ctx.dialect });
      }
    },
  );
}
