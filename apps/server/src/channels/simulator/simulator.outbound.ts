/**
 * The simulator's outbound calls (docs/simulator.md, "An outbound call"): no provider places them.
 * The tester types the number and plays the callee, so the call is "placed" at once and its outcome
 * is known before anything runs: answered (by a person or a machine), the plan runs with
 * `answered_by` set as machine detection would set it; busy or unanswered, the session ends with
 * that dial status and the plan never runs, as on a real outbound call (docs/outbound.md).
 */
import type { SimulatorCallee, SimulatorStartFrame } from '@voxplan/contracts/simulator';
import type { DialStatus } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';

/** What the simulator's callee does, as a provider would report it: who answered, or how the dial ended. */
const calleeOutcomes: Record<SimulatorCallee, Pick<SimulatedCall, 'answered_by' | 'unanswered'>> = {
  human: { answered_by: 'human' },
  machine: { answered_by: 'machine' },
  busy: { unanswered: 'busy' },
  no_answer: { unanswered: 'no_answer' },
};

export interface SimulatedCall {
  /** The number called, in E.164. */
  to: string;
  callee: SimulatorCallee;
  /** The session's parties, as an outbound call has them. */
  caller: string;
  called: string;
  /** Answered: who, as machine detection would tell it. */
  answered_by?: 'human' | 'machine';
  /** Not answered: the dial status the session ends with. */
  unanswered?: Exclude<DialStatus, 'answer'>;
}

/**
 * The outbound test call a start frame asks for: the number read as the API reads an outbound
 * call's `to` (E.164), and what its callee does. A number that is none answers `invalid_input`
 * on `outbound.to`, and no session starts.
 */
export function simulatedCall(_ctx: AppContext, _tenantId: number, frame: SimulatorStartFrame): Promise<SimulatedCall> {
  const { to: typed, callee } = frame.outbound!;
  const to = toE164(typed);
  if (to === null) throw badRequest('invalid_input', [{ path: 'outbound.to', message: 'not a phone number (write it with + and the country code)' }]);
  // An outbound call's caller is the tenant's side, its called the number dialled.
  return Promise.resolve({ to, callee, caller: frame.caller, called: to, ...calleeOutcomes[callee] });
}
