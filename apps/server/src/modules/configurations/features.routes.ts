import { featuresSchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { readFeatures } from './settings.ts';

/**
 * `GET /features`: which feature settings are on. Reading the settings is an administrator's, but
 * every user's console needs these to offer only what works (the plan editor's second AI provider).
 */
export function registerFeatureRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/features',
    {
      schema: {
        tags: ['configurations'],
        description: 'The on/off system settings of the "features" category, for every signed-in user (guests too); an administrator changes them under /configurations.',
        response: { 200: featuresSchema },
      },
    },
    () => readFeatures(ctx.db),
  );
}
