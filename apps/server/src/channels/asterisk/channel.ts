/** Asterisk over FastAGI (docs/channels-asterisk.md): a TCP listener, AGI commands; calls only. Calls it places go through the Manager Interface (AMI). */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { findCall } from '../../modules/outbound-calls/outbound-calls.repository.ts';
import type { Channel, OutboundDialer } from '../channel.ts';
import { runAgiActions } from './agi-actions.ts';
import { startAgiServer } from './agi-server.ts';
import { AmiDialer, DEFAULT_AMI_CALLS_PER_SECOND, type OriginateOutcome, originateOutcome } from './ami-dialer.ts';

/** One manager connection per app (its context), made on its first call. */
const dialers = new WeakMap<AppContext, AmiDialer>();

function dialerOf(ctx: AppContext): AmiDialer {
  const config = ctx.config.ami;
  const existing = dialers.get(ctx);
  if (existing?.config === config) return existing;
  // Settings come from the environment, read once; only a test puts others in (an unreachable manager, a wrong secret).
  if (existing) void existing.close();
  if (!config) throw new AppError(422, 'ami_unreachable', undefined, 'no Asterisk manager is configured (AMI_HOST is not set): Asterisk numbers cannot place calls');
  const log = ctx.logger ?? { warn: () => undefined, error: () => undefined, info: () => undefined };
  // An answered call starts its plan when its FastAGI arrives (agi-outbound.ts); the others end here.
  const applyOutcome = async (sessionId: string, outcome: OriginateOutcome, waitMs = config.answerWaitMs) => {
    if (outcome !== 'answer') return ctx.outboundCalls.dialResult(sessionId, { dial_status: outcome, provider_call_id: sessionId });
    // A callee who hangs up during AMD() stops the dialplan before its AGI (so does a PBX that cannot reach
    // FastAGI): a call still not started after the wait ends as failed, with its report, rather than dialling forever.
    setTimeout(() => void endIfNeverStarted(ctx, sessionId, log), Math.max(0, waitMs)).unref();
  };
  const dialer = new AmiDialer(config, (sessionId, outcome) => applyOutcome(sessionId, outcome), log, async (sessionId, heard) => {
    // Another instance's call, heard by this one too: its sender told it already unless it stopped.
    const call = await findCall(ctx.db, sessionId);
    if (call?.state !== 'dialing' || call.provider !== 'asterisk') return;
    const outcome = originateOutcome(heard.response, heard.reason, heard.heardAt - Date.parse(call.updated_time), call.ring_timeout_s * 1000);
    if (outcome !== 'answer') log.warn({ session_id: sessionId, outcome }, 'the outcome of an Asterisk call whose instance did not tell it (it stopped mid-dial) was stored by this one');
    await applyOutcome(sessionId, outcome, config.answerWaitMs - (Date.now() - heard.heardAt));
  });
  dialers.set(ctx, dialer);
  return dialer;
}

async function endIfNeverStarted(ctx: AppContext, sessionId: string, log: Pick<FastifyBaseLogger, 'warn' | 'error'>): Promise<void> {
  try {
    const call = await findCall(ctx.db, sessionId);
    if (call?.state !== 'dialing') return;
    log.warn({ session_id: sessionId }, 'Asterisk call answered but its FastAGI never came (the callee hung up during AMD, or the PBX cannot reach the listener): ended as failed');
    await ctx.outboundCalls.dialResult(sessionId, { dial_status: 'failed', provider_call_id: sessionId });
  } catch (error) {
    log.error({ err: error, session_id: sessionId }, 'an Asterisk call that never started could not be ended');
  }
}

const amiDial: OutboundDialer = {
  place: (ctx, call) => dialerOf(ctx).place(call),
  // The PBX documents no pace of its own: AMI_CALLS_PER_SECOND, read as the config reads it.
  get callsPerSecond() {
    const configured = Number(process.env.AMI_CALLS_PER_SECOND);
    return Number.isInteger(configured) && configured >= 1 ? configured : DEFAULT_AMI_CALLS_PER_SECOND;
  },
};

export const asteriskChannel: Channel = {
  provider: 'asterisk',
  sessions: ['voice'],
  // The PBX connects to the AGI port (AGI_PORT); without it configured there is nothing to listen on.
  listen: async (ctx, log) => {
    const agi = ctx.config.agi ? await startAgiServer(ctx, ctx.config.agi, log) : null;
    if (!agi) return null;
    return {
      async close(graceMs) {
        await agi.close(graceMs);
        await dialers.get(ctx)?.close();
        dialers.delete(ctx);
      },
    };
  },
  render: runAgiActions,
  dial: amiDial,
  limits: { text: null, options: 0, attachments: [], inboundMedia: [], customerWindowMs: null },
};
