import { defineRuntime } from '../core/define.ts';
import { startBlock } from './definition.ts';

export const startRuntime = defineRuntime(startBlock, {
  compile: (data) => data,
  async enter(turn, node) {
    const { session } = turn;
    if (node.config.ignore_call && session.channel === 'voice') return { end: 'rejected', reject: true };
    // A plan entered through call_plan keeps the protocol the session already has.
    if (node.config.generate_protocol && session.protocol === null) turn.setProtocol(await turn.ports.protocols.next(session.tenant_id, turn.now));
    return { exit: 'next' };
  },
});
