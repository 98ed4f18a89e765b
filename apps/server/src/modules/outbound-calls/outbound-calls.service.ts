/**
 * The outbound core (docs/outbound.md): places a call through the number's channel, and turns what
 * the channel learns back (unanswered, answered, machine detection) into the session, its report
 * and the outcome's three reports (GET, the plan webhook, `status_url`).
 */
import type { AppContext } from '../../context.ts';
import type { OutboundCalls, OutboundOutcome } from './outbound-calls.types.ts';

export function createOutboundCalls(_ctx: Omit<AppContext, 'outboundCalls'>): OutboundCalls {
  const listeners: Array<(outcome: OutboundOutcome) => Promise<void>> = [];
  // TODO(A): the interfaces first, so that the channels and the campaigns can build on them; the body follows on this branch.
  const notYet = (): never => {
    throw new Error('outbound calls are not implemented yet');
  };
  return {
    place: () => Promise.resolve(notYet()),
    onOutcome: (listener) => void listeners.push(listener),
    dialResult: () => Promise.resolve(notYet()),
    answered: () => Promise.resolve(notYet()),
    machineResult: () => Promise.resolve(notYet()),
  };
}
