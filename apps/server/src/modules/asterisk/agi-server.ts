/**
 * The FastAGI listener (docs/channels-asterisk.md): Asterisk connects once per call, names the
 * number, and the number's voice plan runs as a session of the runtime (provider `asterisk`). The
 * connecting address must be in the tenant's access-control list, checked before any plan runs.
 */
import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { type AgiConfig, DEFAULT_AGI_CONNECTIONS_PER_ADDRESS } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { recordAudit } from '../audit/audit.recorder.ts';
import { isAddressAllowed } from '../acl/acl.service.ts';
import { createMediaUrls } from '../audios/media-urls.ts';
import { choosePlan, findNumberCached, type NumberRoute } from '../numbers/number-lookup.ts';
import type { TurnOutcome } from '../sessions/sessions.service.ts';
import { type AgiCallState, COMMAND_MARGIN_MS, runAgiActions } from './agi-actions.ts';
import { AgiConnection, AgiConnectionError } from './agi-connection.ts';

/** Asterisk sends its variables at once: a peer that has not within this time is not a PBX at work. */
const VARIABLES_TIMEOUT_MS = 10_000;

export interface AgiServerOptions {
  /** How long a peer may take to send its variables (default 10 s). */
  variablesTimeoutMs?: number;
  /** How long past what a command waits for itself its reply may take (default 15 s). */
  commandMarginMs?: number;
}
/** Calls at once per process; past it a connection is closed at once (Asterisk goes on in its dialplan). */
const MAX_CONNECTIONS = 2_000;

export interface AgiServer {
  port: number;
  /** Connections refused since start: by the access-control list, naming no number of the PBX, or one too many from an address. */
  readonly refused: number;
  /** Stops listening; calls still running are cut after `graceMs` (their sessions end as the caller hanging up). */
  close(graceMs?: number): Promise<void>;
}

/** The numbers an AGI request may name, in order: the script of `agi://host/<number>`, then the dialled number, then the extension. */
export function calledCandidates(variables: Record<string, string>): string[] {
  const script = (() => {
    try {
      return decodeURIComponent((variables.agi_network_script ?? '').split('?')[0] ?? '').replace(/^\/+/, '');
    } catch {
      return '';
    }
  })();
  const named = [script, variables.agi_dnid ?? '', variables.agi_extension ?? ''].map((value) => value.trim()).filter((value) => /^\+?\d{3,20}$/.test(value));
  // Numbers are stored in E.164; a PBX often drops the plus.
  return [...new Set(named.flatMap((value) => (value.startsWith('+') ? [value] : [`+${value}`, value])))];
}

async function findAsteriskNumber(ctx: AppContext, candidates: string[]): Promise<NumberRoute | undefined> {
  for (const candidate of candidates) {
    const route = await findNumberCached(ctx, candidate);
    if (route?.provider === 'asterisk') return route;
  }
  return undefined;
}

/** Asterisk's caller id is the number, or "unknown" when the caller withheld it. */
const callerOf = (variables: Record<string, string>): string => {
  const id = (variables.agi_callerid ?? '').trim();
  return id === '' || id.toLowerCase() === 'unknown' ? '' : id;
};

export async function startAgiServer(ctx: AppContext, config: AgiConfig, log: FastifyBaseLogger, options: AgiServerOptions = {}): Promise<AgiServer> {
  const variablesTimeoutMs = options.variablesTimeoutMs ?? VARIABLES_TIMEOUT_MS;
  const commandMarginMs = options.commandMarginMs ?? COMMAND_MARGIN_MS;
  const media = createMediaUrls(ctx.keys.mediaKey, ctx.config.publicUrl);
  const sockets = new Set<net.Socket>();
  const calls = new Set<Promise<void>>();
  let refused = 0;

  async function refuse(route: NumberRoute, address: string, variables: Record<string, string>, caller: string): Promise<void> {
    refused += 1;
    log.warn({ address, number_id: route.id, tenant_id: route.tenant_id }, 'AGI call refused: address not in the tenant’s access-control list');
    await recordAudit(ctx.db, { actor: { userId: null, username: null }, sourceIp: address }, [
      {
        action: 'refuse',
        entity: 'agi_call',
        entityId: variables.agi_uniqueid ?? null,
        tenantId: route.tenant_id,
        before: null,
        after: { reason: 'acl', number_id: route.id, called: route.number, caller, address },
      },
    ]);
  }

  async function serve(socket: net.Socket): Promise<void> {
    const agi = new AgiConnection(socket);
    const address = socket.remoteAddress ?? '';
    const state: AgiCallState = { answered: false, speechCreated: false, recording: null, hungUp: false, commandMarginMs };
    let session: { id: string; tenantId: number } | null = null;
    const turn = (eventId: string, event: Parameters<AppContext['sessions']['handleTurn']>[2]) =>
      ctx.sessions.handleTurn(session!.id, eventId, event, { tenantId: session!.tenantId });
    try {
      const variables = await agi.readVariables(variablesTimeoutMs);
      const route = await findAsteriskNumber(ctx, calledCandidates(variables));
      const caller = callerOf(variables);
      if (!route) {
        refused += 1;
        log.info({ address, script: variables.agi_network_script, dnid: variables.agi_dnid }, 'AGI call to a number nobody has on Asterisk');
        return;
      }
      if (!(await isAddressAllowed(ctx.db, route.tenant_id, address))) {
        await refuse(route, address, variables, caller);
        return;
      }
      const planId = choosePlan(route, 'voice', new Date(), caller);
      if (planId === null) {
        log.warn({ number_id: route.id }, 'AGI call to a number without a voice plan');
        return;
      }
      let outcome: TurnOutcome = await ctx.sessions.start({
        tenant_id: route.tenant_id,
        plan_id: planId,
        channel: 'voice',
        provider: 'asterisk',
        direction: 'inbound',
        caller,
        called: route.number,
        source_ip: address,
      });
      session = { id: outcome.session_id, tenantId: route.tenant_id };
      const context = { config, media, sessionId: session.id };
      for (;;) {
        const result = await runAgiActions(agi, state, outcome.actions, outcome.revision, context);
        if (result.kind === 'event') {
          outcome = await turn(result.eventId, result.event);
          continue;
        }
        if (result.kind === 'hungup' || outcome.status !== 'ended') await turn('call-end', { type: 'hangup' });
        else if (!state.hungUp && !outcome.actions.some((action) => action.type === 'hangup')) await agi.command('HANGUP', commandMarginMs).catch(() => undefined);
        break;
      }
    } catch (error) {
      if (error instanceof AgiConnectionError) log.info({ address, reason: error.reason, session_id: session?.id }, `AGI connection ended: ${error.message}`);
      else log.error({ err: error, address, session_id: session?.id }, 'AGI call failed');
      // The call is over for the PBX either way: its session ends as a caller hanging up.
      if (session) await turn('call-end', { type: 'hangup' }).catch((failure: unknown) => log.error({ err: failure }, 'AGI call could not be ended'));
    } finally {
      agi.close();
      if (session && state.recording && config.recordingUrl) {
        const { file, startedAt } = state.recording;
        const url = config.recordingUrl.replace('{file}', encodeURIComponent(file));
        const event = { type: 'recording_ready' as const, url, duration_s: Math.round((Date.now() - startedAt) / 1000) };
        await turn(`recording:${file}`, event).catch((failure: unknown) => log.error({ err: failure }, 'AGI recording could not be reported'));
      }
    }
  }

  /** Connections open per remote address, and the addresses whose refusal was logged since they were last under the limit. */
  const perAddress = new Map<string, number>();
  const warned = new Set<string>();
  const maxPerAddress = config.maxConnectionsPerAddress ?? DEFAULT_AGI_CONNECTIONS_PER_ADDRESS;

  const server = net.createServer((socket) => {
    // Before the access-control list, which needs the variables read: a peer anywhere may open connections.
    const address = socket.remoteAddress ?? '';
    const held = perAddress.get(address) ?? 0;
    if (held >= maxPerAddress) {
      refused += 1;
      // Once, not for every connection of a flood.
      if (!warned.has(address)) log.warn({ address, limit: maxPerAddress }, 'AGI connections refused: too many from one address');
      warned.add(address);
      socket.destroy();
      return;
    }
    perAddress.set(address, held + 1);
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
      warned.delete(address);
    });
    const call = serve(socket);
    calls.add(call);
    void call.finally(() => calls.delete(call));
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as net.AddressInfo;
  log.info(`FastAGI listening on ${config.host}:${port}`);
  return {
    port,
    get refused() {
      return refused;
    },
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      await closed;
      clearTimeout(deadline);
      // Their sessions' last turns are written before the database may close.
      await Promise.all(calls);
    },
  };
}
