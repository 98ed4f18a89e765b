import type { DestinationInfo, DialStatus, Outcome, Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { destinationBlock } from './definition.ts';

const exitOf: Readonly<Record<DialStatus, string>> = {
  answer: 'answer',
  busy: 'busy',
  no_answer: 'no_answer',
  cancel: 'failed',
  dont_call: 'failed',
  invalid_args: 'failed',
  failed: 'failed',
};

export const destinationRuntime = defineRuntime(destinationBlock, {
  compile: (data) => data,
  // A promise only when the port answers with one: a host answers a destination it keeps at once.
  enter(turn, node) {
    const found = turn.ports.destinations.find(turn.session.tenant_id, node.config.destination_id);
    const { chat_wait_min, timeout_s } = node.config;
    return found instanceof Promise ? found.then((destination) => dial(turn, destination, chat_wait_min, timeout_s)) : dial(turn, found, chat_wait_min, timeout_s);
  },
  resume(turn, _node, event) {
    if (event.type !== 'dial_result') return undefined;
    turn.setDialStatus(event.status);
    // The person resolved the chat: it ends here, answered, rather than at the customer's leaving.
    if (event.resolved && event.status === 'answer') return { end: 'resolved' };
    return { exit: exitOf[event.status] };
  },
});

function dial(turn: Turn, destination: DestinationInfo | undefined, chatWaitMin: number, timeoutS: number): Outcome {
  const { session } = turn;
  // Removed since the plan was saved, or of the other channel's kind: nothing can be dialled.
  if (!destination || destination.kind !== session.channel) {
    turn.setDialStatus('invalid_args');
    return { exit: 'failed' };
  }
  // A chat waits in a queue (no URI) for a person, in minutes; a call rings and a desk's URL
  // answers within seconds. The action carries seconds either way.
  const isQueue = session.channel === 'chat' && destination.uri === '';
  const timeout_s = isQueue ? chatWaitMin * 60 : timeoutS;
  const action = { type: 'dial' as const, destination_id: destination.id, name: destination.name, uri: destination.uri, timeout_s };
  turn.emit(session.channel === 'chat' ? { ...action, transcript: session.transcript.slice(), variables: { ...session.variables } } : action);
  return { wait: true };
}
