import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import type { ChannelRegistry } from './channels/registry.ts';
import type { AppContext } from './context.ts';
import { registerApiKeyRoutes } from './modules/api-keys/api-keys.routes.ts';
import { registerAudioRoutes } from './modules/audios/audios.routes.ts';
import { registerMediaRoutes } from './modules/audios/media.routes.ts';
import { registerAuthRoutes } from './modules/auth/auth.routes.ts';
import { registerFeatureRoutes } from './modules/configurations/features.routes.ts';
import { registerCampaignRoutes } from './modules/campaigns/campaigns.routes.ts';
import { registerConversationRoutes } from './modules/conversations/conversations.routes.ts';
import { registerDeskRoutes } from './modules/conversations/desk.ts';
import { registerDateRangeRoutes } from './modules/date-ranges/date-ranges.routes.ts';
import { registerDoNotCallRoutes } from './modules/do-not-call/do-not-call.routes.ts';
import { registerHolidayImportRoutes } from './modules/holidays/holidays-import.routes.ts';
import { registerLicenseRoutes } from './modules/license/license.routes.ts';
import { registerWebchatIdentityRoutes } from './modules/numbers/webchat-identity.routes.ts';
import { registerPlanWebhookRoutes } from './modules/plan-webhook/plan-webhook.routes.ts';
import { registerReportExportRoutes } from './modules/reports/reports-export.routes.ts';
import { registerStatsLiveRoutes } from './modules/stats/stats-live.routes.ts';
import { registerStatsRoutes } from './modules/stats/stats.routes.ts';
import { registerHealthRoutes } from './modules/system/health.routes.ts';
import { createHostReading, registerSystemInfoRoutes } from './modules/system/system-info.routes.ts';
import { registerIntegrationRoutes } from './modules/tenants/integrations.routes.ts';
import { registerMeRoutes } from './modules/users/me.routes.ts';
import { registerOutboundCallRoutes } from './modules/outbound-calls/outbound-calls.routes.ts';
import { registerVisualPlanRoutes } from './modules/visual-plans/visual-plans.routes.ts';
import { registerRolloutRoutes } from './modules/rollouts/rollouts.routes.ts';
import { registerRolloutResultsRoutes } from './modules/rollouts/results.routes.ts';
import { authPlugin } from './plugins/auth.ts';
import { consolePlugin } from './plugins/console.ts';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.ts';
import { RequestLogController } from './plugins/request-log.ts';
import { requestLoggerFactory } from './plugins/request-logger.ts';
import { securityHeadersPlugin } from './plugins/security-headers.ts';
import { allResources } from './modules/resource-registry.ts';
import { registerResource } from './resources/routes.ts';
import { registerMetricsRoute, timeProviderWebhooks } from './modules/metrics/metrics.ts';

export const API_PREFIX = '/api/v1';

const serialized = new WeakMap<object, string>();

/**
 * A frozen answer (one from the read cache) cannot change, so its JSON is written once and
 * reused for every request that gets the same answer.
 */
function serializeJson(data: unknown): string {
  if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return JSON.stringify(data);
  let json = serialized.get(data);
  if (json === undefined) {
    json = JSON.stringify(data);
    serialized.set(data, json);
  }
  return json;
}

/** Builds the whole application without listening, so tests can inject requests into it. */
/** The app's context as the composition root holds it: the channels whole, their routes and listeners too. */
export interface ServerContext extends AppContext {
  channels: ChannelRegistry;
}

export async function buildApp(ctx: ServerContext, options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(!options.loggerInstance && { logger: options.logger ?? { level: ctx.config.logLevel } }),
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    logController: new RequestLogController({ slowRequestMs: ctx.config.slowRequestMs }),
    // The request's logger is made when first written to: most requests write no line (issue 40).
    childLoggerFactory: requestLoggerFactory,
    // What Fastify or Node's parser refuses before a route runs also answers in the error shape.
    frameworkErrors,
    clientErrorHandler,
    ...options,
  });

  app.setValidatorCompiler(validatorCompiler);
  // Answers are shaped by each resource's present(); the zod response schemas document them.
  app.setSerializerCompiler(() => serializeJson);

  await app.register(securityHeadersPlugin, { publicUrl: ctx.config.publicUrl });
  await app.register(errorsPlugin, { onDatabaseUnavailable: (error: unknown) => ctx.databaseAvailability?.noteFailure(error) });
  await app.register(authPlugin, { ctx });
  timeProviderWebhooks(app, ctx);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Voxplan API', version: '1.0.0', description: 'Call-flow console API (LoopBack-style filters).' },
      servers: [{ url: ctx.config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or vxk_ API key' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // No validator badge: it is an image from validator.swagger.io, which the page's policy refuses.
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, uiConfig: { validatorUrl: null } });

  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      registerHealthRoutes(api, ctx);
      // The refresh cookie is the sign-in routes' alone: elsewhere the cookie plugin's two hooks
      // (parse on request, write on send) would run on every request for nothing (issue 40).
      await api.register(async (signIn) => {
        await signIn.register(cookie);
        registerAuthRoutes(signIn, ctx);
      });
      // Each provider's inbound routes (channels/registry.ts); each checks its callers its own way.
      for (const channel of ctx.channels.all()) await channel.routes?.(api, { ctx, apiPrefix: API_PREFIX });
      registerMediaRoutes(api, ctx);
      // Called by outside desks, with the conversation's reply token instead of a sign-in.
      registerDeskRoutes(api, ctx);

      await api.register(async (secured) => {
        secured.addHook('onRequest', secured.authenticateHook);
        registerMeRoutes(secured, ctx);
        registerApiKeyRoutes(secured, ctx);
        registerIntegrationRoutes(secured, ctx);
        registerFeatureRoutes(secured, ctx);
        registerHolidayImportRoutes(secured, ctx);
        registerDateRangeRoutes(secured, ctx);
        registerPlanWebhookRoutes(secured, ctx);
        registerVisualPlanRoutes(secured, ctx);
        registerRolloutRoutes(secured, ctx);
        registerRolloutResultsRoutes(secured, ctx);
        // One reading of the host serves the system info and the dashboard's system status.
        const hostReading = createHostReading();
        registerSystemInfoRoutes(secured, hostReading);
        registerStatsRoutes(secured, ctx);
        registerStatsLiveRoutes(secured, ctx, hostReading);
        registerReportExportRoutes(secured, ctx);
        await registerConversationRoutes(secured, ctx);
        registerLicenseRoutes(secured, ctx);
        registerWebchatIdentityRoutes(secured, ctx);
        registerOutboundCallRoutes(secured, ctx);
        await registerAudioRoutes(secured, ctx);
        await registerCampaignRoutes(secured, ctx);
        await registerDoNotCallRoutes(secured, ctx);
        for (const resource of allResources()) registerResource(secured, ctx, resource);
      });
    },
    { prefix: API_PREFIX },
  );
  for (const channel of ctx.channels.all()) channel.rootRoutes?.(app, ctx);
  registerMetricsRoute(app, ctx);
  await app.register(consolePlugin, { dir: ctx.config.consoleDir, apiPrefix: API_PREFIX });

  return app;
}
