/**
 * The simulator's outbound calls (docs/simulator.md, "An outbound call"): no provider places them.
 * The tester types the number and plays the callee, so the call is "placed" at once and its outcome
 * is known before anything runs: answered (by a person or a machine), the plan runs with
 * `answered_by` set, as a channel whose detection runs before the plan sets it (docs/outbound.md);
 * busy or unanswered, the session ends with that dial status and the plan never runs.
 */
import type { SimulatorCallee, SimulatorStartFrame } from '@voxplan/contracts/simulator';
import type { DialStatus } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest } from '../../errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { isOnDoNotCall } from '../../modules/do-not-call/do-not-call.service.ts';
import { tenantDialingDefaults } from '../../modules/tenants/tenant-dialing.ts';
import type { OutboundDialer } from '../channel.ts';

/**
 * The simulator as a dialer: the call is "placed" at once, with no provider to ask, and its id is
 * the session's. What happens next is the tester's choice of callee, not a provider's callback.
 */
export const simulatorDialer: OutboundDialer = {
  place: (_ctx, call) => Promise.resolve({ provider_call_id: `simulator:${call.session_id}` }),
  // No provider's account to keep under: one tester places one call at a time.
  callsPerSecond: 1,
};

export interface SimulatedCall {
  /** The number called, in E.164. */
  to: string;
  callee: SimulatorCallee;
  /** Answered: who, as machine detection would tell it. */
  answered_by?: 'human' | 'machine';
  /** Not answered: the dial status the session ends with. */
  unanswered?: Exclude<DialStatus, 'answer'>;
}

/** What the simulator's callee does, as a provider would report it: who answered, or how the dial ended. */
const calleeOutcomes: Record<SimulatorCallee, Pick<SimulatedCall, 'answered_by' | 'unanswered'>> = {
  human: { answered_by: 'human' },
  machine: { answered_by: 'machine' },
  busy: { unanswered: 'busy' },
  no_answer: { unanswered: 'no_answer' },
};

/**
 * The outbound test call a start frame asks for, placed through the simulator's dialer. The number
 * is read as the outbound call API reads its `to` (E.164, the tenant's country for a national
 * number), and refused as that API refuses it: no phone number is `invalid_phone_number`, a number
 * on the tenant's do-not-call list `outbound_do_not_call` (a real call would never ring it). A
 * refusal starts no session.
 */
export async function placeSimulatedCall(ctx: AppContext, tenantId: number, sessionId: string, frame: SimulatorStartFrame): Promise<SimulatedCall> {
  const { to: typed, callee } = frame.outbound!;
  const { country } = await tenantDialingDefaults(ctx.db, tenantId);
  const to = toE164(typed, country || undefined);
  if (to === null) throw badRequest('invalid_phone_number', [{ path: 'outbound.to', message: `${typed} is not a phone number` }]);
  if (await isOnDoNotCall(ctx.db, tenantId, to)) throw new AppError(422, 'outbound_do_not_call', [{ path: 'outbound.to', message: `${to} is on the do-not-call list` }]);
  await simulatorDialer.place(ctx, { session_id: sessionId, tenant_id: tenantId, from: frame.caller, to, machine_detection: true, ring_timeout_s: 30 });
  return { to, callee, ...calleeOutcomes[callee] };
}
