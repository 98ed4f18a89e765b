/**
 * The FastAGI listener (docs/channels-asterisk.md): Asterisk connects once per call, names the
 * number, and the number's voice plan runs as a session of the runtime (provider `asterisk`). The
 * connecting address must be in the tenant's access-control list, checked before any plan runs.
 */
import net from 'node:net';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type AgiConfig, DEFAULT_AGI_CONNECTIONS_PER_ADDRESS } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { isAddressAllowed } from '../../modules/acl/acl.service.ts';
import { convertToMp3 } from '../../modules/audios/audio-tools.ts';
import { createMediaUrls } from '../../modules/audios/media-urls.ts';
import { choosePlan, findNumberCached, type NumberRoute } from '../../modules/numbers/number-lookup.ts';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import { type AgiCallState, COMMAND_MARGIN_MS, runAgiActions } from './agi-actions.ts';
import { AgiConnection, AgiConnectionError } from './agi-connection.ts';
import { OutboundAddressRefused, outboundSessionOf, startOutboundSession } from './agi-outbound.ts';
import { causeOf } from '../../db/unavailable.ts';
import { AppError } from '../../errors.ts';
import { answersFallback, settleWithin, unavailableMessage } from '../fault-fallback.ts';
import { recordingFile, unplayableReason } from './agi-media.ts';

/** Asterisk sends its variables at once: a peer that has not within this time is not a PBX at work. */
const VARIABLES_TIMEOUT_MS = 10_000;

export interface AgiServerOptions {
  /** How long a peer may take to send its variables (default 10 s). */
  variablesTimeoutMs?: number;
  /** How long past what a command waits for itself its reply may take (default 15 s). */
  commandMarginMs?: number;
  /** How long a start or a turn may take before the caller hears "not available right now" (default PROVIDER_HOOK_DEADLINE_MS). */
  deadlineMs?: number;
}

/** A start or turn still running past the deadline: the call is answered without it, and ended once it is done. */
class PastDeadline extends Error {
  constructor(
    readonly work: Promise<unknown>,
    deadlineMs: number,
  ) {
    super(`past the deadline of ${deadlineMs} ms`);
  }
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
  // The same bound as Twilio's webhooks (fault-fallback.ts): a caller on Asterisk waits in silence as long as the database does.
  const deadlineMs = options.deadlineMs ?? ctx.config.providerHookDeadlineMs;
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

  /** An answered call the server placed: its session's plan starts (agi-outbound.ts); undefined when the call is not taken. */
  async function beginOutbound(sessionId: string, variables: Record<string, string>, address: string): Promise<{ route: Pick<NumberRoute, 'tenant_id'>; outcome: TurnOutcome } | undefined> {
    try {
      const { tenantId, outcome } = await startOutboundSession(ctx, sessionId, variables, address);
      return { route: { tenant_id: tenantId }, outcome };
    } catch (error) {
      if (error instanceof OutboundAddressRefused) {
        refused += 1;
        log.warn({ address, session_id: sessionId, tenant_id: error.tenantId }, 'AGI outbound call refused: address not in the tenant’s access-control list');
        await recordAudit(ctx.db, { actor: { userId: null, username: null }, sourceIp: address }, [
          { action: 'refuse', entity: 'agi_call', entityId: variables.agi_uniqueid ?? null, tenantId: error.tenantId, before: null, after: { reason: 'acl', session_id: sessionId, address } },
        ]);
        return undefined;
      }
      // A session that is no outbound call waiting for its answer (unknown, over, another provider's): nothing runs.
      if (error instanceof AppError && error.statusCode < 500) {
        refused += 1;
        log.info({ address, session_id: sessionId, code: error.code }, 'AGI outbound call naming no call waiting to be answered');
        return undefined;
      }
      throw error;
    }
  }

  /** The "not available right now" message in the tenant's language (DEFAULT_LANGUAGE when it cannot be read in time), then the hang-up. */
  async function sayUnavailable(agi: AgiConnection, state: AgiCallState, tenantId: number | undefined): Promise<void> {
    const message = await unavailableMessage(ctx, async () => tenantId);
    const actions = [
      { type: 'say', text: message.text, language: message.language },
      { type: 'hangup', cause: 'engine_error' },
    ] as const;
    await runAgiActions(agi, state, actions, 0, { config, media, sessionId: '', onUnplayable: async () => {} });
  }

  /** `work`'s value within the deadline; past it, PastDeadline (the work goes on). */
  async function inTime<T>(work: Promise<T>): Promise<T> {
    const settled = await settleWithin(work, deadlineMs);
    if (settled.state === 'done') return settled.value;
    if (settled.state === 'failed') throw settled.error;
    throw new PastDeadline(work, deadlineMs);
  }

  async function serve(socket: net.Socket): Promise<void> {
    const agi = new AgiConnection(socket);
    const address = socket.remoteAddress ?? '';
    const state: AgiCallState = { answered: false, recording: null, hungUp: false, commandMarginMs };
    let session: { id: string; tenantId: number } | null = null;
    let tenantId: number | undefined;
    /** The end of a session whose start or turn ran past the deadline, written once that work is done. */
    let lateEnd: Promise<void> | undefined;
    const turn = (eventId: string, event: Parameters<AppContext['sessions']['handleTurn']>[2]) =>
      ctx.sessions.handleTurn(session!.id, eventId, event, { tenantId: session!.tenantId });
    try {
      const variables = await agi.readVariables(variablesTimeoutMs);
      const caller = callerOf(variables);
      /** The number's lookup, its access-control list and the session's start: undefined when the call is not taken. */
      const begin = async (): Promise<{ route: Pick<NumberRoute, 'tenant_id'>; outcome: TurnOutcome } | undefined> => {
        const outboundSession = outboundSessionOf(variables);
        if (outboundSession !== null) {
          const answered = await beginOutbound(outboundSession, variables, address);
          tenantId = answered?.route.tenant_id;
          return answered;
        }
        const route = await findAsteriskNumber(ctx, calledCandidates(variables));
        if (!route) {
          refused += 1;
          log.info({ address, script: variables.agi_network_script, dnid: variables.agi_dnid }, 'AGI call to a number nobody has on Asterisk');
          return undefined;
        }
        if (!(await isAddressAllowed(ctx.db, route.tenant_id, address))) {
          await refuse(route, address, variables, caller);
          return undefined;
        }
        tenantId = route.tenant_id;
        const planId = choosePlan(route, 'voice', new Date(), caller);
        if (planId === null) {
          log.warn({ number_id: route.id }, 'AGI call to a number without a voice plan');
          return undefined;
        }
        const outcome = await ctx.sessions.start({
          tenant_id: route.tenant_id,
          plan_id: planId,
          channel: 'voice',
          provider: 'asterisk',
          direction: 'inbound',
          caller,
          called: route.number,
          source_ip: address,
        });
        return { route, outcome };
      };
      const begun = await inTime(begin());
      if (!begun) return;
      const { route } = begun;
      let { outcome } = begun;
      const started = { id: outcome.session_id, tenantId: route.tenant_id };
      session = started;
      let unplayable = 0;
      // Told to the operator twice: the log, and the report's failure (which the dashboard's system status counts).
      const onUnplayable = async (url: string, action: number) => {
        const reason = await unplayableReason(ctx, media, url);
        log.warn({ session_id: started.id, tenant_id: started.tenantId, url, reason }, `AGI prompt could not be played (${reason}): ${url}`);
        unplayable += 1;
        ctx.metrics?.mediaFetchFailures.inc({ kind: 'prompt' });
        await turn(`prompt:${outcome.revision}:${unplayable}`, { type: 'prompt_failed', action, message: `the PBX could not play ${url} (${reason})` });
      };
      let speechFaults = 0;
      // A PBX without the configured engine: every speech block of the call hears silence; the operator learns why.
      const onSpeechUnavailable = async (engine: string, action: number) => {
        log.warn({ session_id: started.id, tenant_id: started.tenantId, engine }, `AGI speech engine "${engine}" is not on the PBX (SPEECH CREATE answered 0)`);
        speechFaults += 1;
        await turn(`speech:${outcome.revision}:${speechFaults}`, { type: 'speech_unavailable', action, message: `the PBX has no speech engine "${engine}" (SPEECH CREATE answered 0): load its module, or set AGI_SPEECH_ENGINE to one it has` });
      };
      const context = { config, media, sessionId: session.id, onUnplayable, onSpeechUnavailable };
      for (;;) {
        const result = await runAgiActions(agi, state, outcome.actions, outcome.revision, context);
        if (result.kind === 'event') {
          outcome = await inTime(turn(result.eventId, result.event));
          // The caller left once the dial was over: its outcome is in, then the hang-up.
          if (state.hungUp) {
            if (outcome.status !== 'ended') await turn('call-end', { type: 'hangup' });
            break;
          }
          continue;
        }
        if (result.kind === 'hungup') await turn('call-end', { type: 'hangup', actions_started: result.actionsStarted });
        else if (outcome.status !== 'ended') await turn('call-end', { type: 'hangup' });
        else if (!state.hungUp && !outcome.actions.some((action) => action.type === 'hangup')) await agi.command('HANGUP', commandMarginMs).catch(() => undefined);
        break;
      }
    } catch (error) {
      if (error instanceof AgiConnectionError) log.info({ address, reason: error.reason, session_id: session?.id }, `AGI connection ended: ${error.message}`);
      else if (error instanceof PastDeadline) log.warn({ address, session_id: session?.id, cause: error.message }, `AGI call answered "not available": ${error.message}`);
      else log.error({ err: error, address, session_id: session?.id, cause: causeOf(error) }, 'AGI call failed');
      // A failure of the server's own (the database away) or a turn too slow: the caller hears that the service is not available, then the PBX hangs up.
      if (!(error instanceof AgiConnectionError) && answersFallback(error) && !agi.hungUp) await sayUnavailable(agi, state, tenantId).catch(() => undefined);
      // The call is over for the PBX either way: its session ends as a caller hanging up. A late
      // start or turn is let finish first (its session, if any, is known then); the lost-calls
      // sweeper is the net for an end that cannot be written.
      const end = (id: string) =>
        ctx.sessions
          .handleTurn(id, 'call-end', { type: 'hangup' }, tenantId === undefined ? {} : { tenantId })
          .then(() => undefined)
          .catch((failure: unknown) => log.error({ session_id: id, cause: causeOf(failure) }, 'AGI call could not be ended'));
      if (error instanceof PastDeadline) {
        lateEnd = error.work.then(
          async (value) => {
            const id = session?.id ?? (value as { outcome: TurnOutcome } | undefined)?.outcome.session_id;
            if (id === undefined) return;
            await end(id);
            log.info({ session_id: id }, 'an AGI call answered "not available" after its deadline was ended');
          },
          async () => {
            if (session) await end(session.id);
          },
        );
      } else if (session) await end(session.id);
    } finally {
      agi.close();
      await lateEnd;
      if (session && state.recording) await reportRecording(session, state.recording);
    }
  }

  /**
   * The recording, once the call is over: where the PBX serves it. With the folder the server sees
   * the PBX's files in, only a file that is there is reported (else the recording failed), and an
   * MP3 block's WAV is converted beside it.
   */
  async function reportRecording(session: { id: string; tenantId: number }, recording: NonNullable<AgiCallState['recording']>): Promise<void> {
    if (!config.recordingUrl) return;
    const durationS = Math.round((Date.now() - recording.startedAt) / 1000);
    const turn = (eventId: string, event: Parameters<AppContext['sessions']['handleTurn']>[2]) =>
      ctx.sessions.handleTurn(session.id, eventId, event, { tenantId: session.tenantId }).catch((failure: unknown) => log.error({ err: failure }, 'AGI recording could not be reported'));
    let file = recording.file;
    if (config.recordingDir) {
      const wav = path.join(config.recordingDir, recording.file);
      if (!(await recordingFile(wav))) {
        log.warn({ session_id: session.id, file: wav }, 'AGI recording: MixMonitor left no file');
        await turn(`recording:${file}`, { type: 'recording_failed', error: 'recording_not_found' });
        return;
      }
      if (recording.format === 'mp3') {
        file = recording.file.replace(/\.wav$/, '.mp3');
        try {
          await convertToMp3(wav, path.join(config.recordingDir, file));
        } catch (error) {
          log.error({ err: error, session_id: session.id, file: wav }, 'AGI recording could not be converted to MP3');
          await turn(`recording:${file}`, { type: 'recording_failed', error: 'recording_conversion_failed' });
          return;
        }
      }
    }
    const url = config.recordingUrl.replace('{file}', encodeURIComponent(file));
    await turn(`recording:${file}`, { type: 'recording_ready', url, duration_s: durationS });
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
