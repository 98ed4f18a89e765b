import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import websocket from '@fastify/websocket';
import { simulatorMaxFrameBytes, simulatorProtocol, simulatorSignInEndedCode } from '@voxplan/contracts/simulator';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, notFound } from '../../errors.ts';
import { apiErrorOf, localeOf } from '../../plugins/errors.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { visualPlansResource } from '../../modules/visual-plans/visual-plans.resource.ts';
import { type SimulatedPlan, SimulatorConnection } from './simulator.connection.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/** The path the simulator's WebSocket upgrades on, below the API's prefix. */
const simulatorPath = /^\/visual-plans\/[^/?#]+\/simulator(?:[?#]|$)/;

/**
 * The simulator's WebSocket route, with the WebSocket plugin in this context only. Registered at
 * the root, the plugin adds a hook before and after every request of the API (to tell upgrades
 * apart) and wraps every route's handler: a tenth of what a cached read costs. Here it hears only
 * upgrades to the simulator's path; any other upgrade is answered 404 and its connection closed,
 * as no other route speaks WebSocket. The caller is authenticated after the plugin has marked the
 * request as an upgrade, so that a refusal closes the socket too.
 */
export async function simulatorPlugin(app: FastifyInstance, options: { ctx: AppContext; apiPrefix: string }): Promise<void> {
  const simulatorUpgrades = new EventEmitter();
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = request.url ?? '';
    if (url.startsWith(options.apiPrefix) && simulatorPath.test(url.slice(options.apiPrefix.length))) {
      simulatorUpgrades.emit('upgrade', request, socket, head);
      return;
    }
    const body = JSON.stringify(apiErrorOf(notFound(), localeOf(request), app.log).body);
    socket.on('error', () => socket.destroy());
    socket.end(
      `HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };
  app.server.on('upgrade', onUpgrade);
  app.addHook('onClose', () => {
    app.server.off('upgrade', onUpgrade);
  });
  await app.register(websocket, {
    options: {
      // The plugin listens to upgrades on `server`: only those passed on above.
      server: simulatorUpgrades as unknown as Server,
      maxPayload: simulatorMaxFrameBytes,
      // Only the real subprotocol is ever chosen: a `bearer.<token>` offered beside it (a browser's
      // way of sending its token) must never be echoed back in the answer's headers.
      handleProtocols: (offered) => (offered.has(simulatorProtocol) ? simulatorProtocol : false),
    },
  });
  app.addHook('onRequest', (request) => app.authenticate(request));
  registerSimulatorRoutes(app, options.ctx);
}

/**
 * `GET /visual-plans/{id}/simulator`, upgraded to a WebSocket (docs/simulator.md). Who may run the
 * plan is settled before the upgrade, so a refusal is an ordinary HTTP error answer.
 */
function registerSimulatorRoutes(app: FastifyInstance, ctx: AppContext): void {
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
        'WebSocket (subprotocol voxplan.simulator.v1): runs the draft or the published plan as a test voice call (inbound, or outbound with the callee played by the tester) or chat. ' +
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
      // A socket runs the tenant's plans for as long as the sign-in that opened it holds; closing
      // it hangs its session up, as when the panel goes.
      const unwatch = app.watchSignIn(request, (reason) => connection.close(simulatorSignInEndedCode, reason));
      void connection.finished.then(() => {
        unwatch();
        connections.delete(connection);
      });
    },
  });
}
