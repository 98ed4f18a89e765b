import { defineRuntime } from '../core/define.ts';
import { startBlock } from './definition.ts';
import { type AnsweredBy, answeredByExits } from './description.ts';

/**
 * The exit a start with outbound branching takes: on an outbound call, the `answered_by` its
 * machine detection set (`unknown` when none ran or it could not tell); an inbound call or a chat
 * was started by a person.
 */
function answeredByExit(direction: 'inbound' | 'outbound', value: unknown): AnsweredBy {
  if (direction === 'inbound') return 'human';
  return answeredByExits.find((exit) => exit === value) ?? 'unknown';
}

export const startRuntime = defineRuntime(startBlock, {
  compile: (data) => data,
  async enter(turn, node) {
    const { session } = turn;
    if (node.config.ignore_call && session.channel === 'voice') return { end: 'rejected', reject: true };
    // A plan entered through call_plan keeps the protocol the session already has.
    if (node.config.generate_protocol && session.protocol === null) turn.setProtocol(await turn.ports.protocols.next(session.tenant_id, turn.now));
    return { exit: node.config.answered_by_exits ? answeredByExit(session.direction, session.variables.answered_by) : 'next' };
  },
});
