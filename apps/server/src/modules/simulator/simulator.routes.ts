import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { localeOf } from '../../plugins/errors.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { visualPlansResource } from '../visual-plans/visual-plans.resource.ts';
import { type SimulatedPlan, SimulatorConnection } from './simulator.connection.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * `GET /visual-plans/{id}/simulator`, upgraded to a WebSocket (docs/simulator.md). Who may run the
 * plan is settled before the upgrade, so a refusal is an ordinary HTTP error answer.
 */
export function registerSimulatorRoutes(app: FastifyInstance, ctx: AppContext): void {
  const plans = new ResourceService<VisualPlan>(visualPlansResource, ctx);
  const planOf = new WeakMap<FastifyRequest, SimulatedPlan>();
  const connections = new Set<SimulatorConnection>();
  // Sockets are closed before the server stops; their hang-ups are stored before the database closes.
  app.addHook('onClose', async () => {
    await Promise.all([...connections].map((connection) => connection.finished));
  });

  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/visual-plans/:id/simulator',
    schema: {
      tags: ['visual-plans'],
      params: idParams,
      description:
        'WebSocket (subprotocol voxplan.simulator.v1): runs the draft or the published plan as a test voice call or chat. ' +
        'The client sends start, digits, speech, message, timeout, dial_result and hangup frames; the server streams node, exit and action frames, ' +
        'then ended and turn. A request that is not a WebSocket upgrade answers 426 upgrade_required. See docs/simulator.md.',
    },
    // Running a plan stores a session and its report: guests, who never write, may not.
    preHandler: async (request) => {
      const scope = scopeOf(request);
      plans.assertWritable(scope);
      const row = await plans.findRow(ctx.db, scope, request.params.id);
      planOf.set(request, { id: Number(row.id), tenant_id: Number(row.tenant_id) });
    },
    handler: async () => {
      throw new AppError(426, 'upgrade_required');
    },
    wsHandler: (socket, request) => {
      const connection = new SimulatorConnection(socket, {
        ctx,
        transport: request.raw.socket,
        plan: planOf.get(request)!,
        locale: localeOf(request),
        sourceIp: request.ip,
        log: request.log,
      });
      connections.add(connection);
      void connection.finished.then(() => connections.delete(connection));
    },
  });
}
