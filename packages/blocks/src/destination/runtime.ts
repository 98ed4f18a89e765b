import type { DialStatus } from '@voxplan/engine';
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
  async enter(turn, node) {
    const { session } = turn;
    const destination = await turn.ports.destinations.find(session.tenant_id, node.config.destination_id);
    // Removed since the plan was saved, or of the other channel's kind: nothing can be dialled.
    if (!destination || destination.kind !== session.channel) {
      turn.setDialStatus('invalid_args');
      return { exit: 'failed' };
    }
    // A chat waits in a queue (no URI) for a person, in minutes; a call rings and a desk's URL
    // answers within seconds. The action carries seconds either way.
    const isQueue = session.channel === 'chat' && destination.uri === '';
    const timeout_s = isQueue ? node.config.chat_wait_min * 60 : node.config.timeout_s;
    const dial = { type: 'dial' as const, destination_id: destination.id, name: destination.name, uri: destination.uri, timeout_s };
    turn.emit(session.channel === 'chat' ? { ...dial, transcript: session.transcript.slice(), variables: { ...session.variables } } : dial);
    return { wait: true };
  },
  resume(turn, _node, event) {
    if (event.type !== 'dial_result') return undefined;
    turn.setDialStatus(event.status);
    // The person resolved the chat: it ends here, answered, rather than at the customer's leaving.
    if (event.resolved && event.status === 'answer') return { end: 'resolved' };
    return { exit: exitOf[event.status] };
  },
});
