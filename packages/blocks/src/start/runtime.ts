import type { Outcome, Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { startBlock } from './definition.ts';

export const startRuntime = defineRuntime(startBlock, {
  compile: (data) => data,
  // A promise only when a protocol is generated: a promise cost every other start a microtask and an async frame.
  enter(turn, node) {
    const { session } = turn;
    if (node.config.ignore_call && session.channel === 'voice') return { end: 'rejected', reject: true };
    // A plan entered through call_plan keeps the protocol the session already has.
    if (node.config.generate_protocol && session.protocol === null) return generateProtocol(turn);
    return { exit: 'next' };
  },
});

async function generateProtocol(turn: Turn): Promise<Outcome> {
  turn.setProtocol(await turn.ports.protocols.next(turn.session.tenant_id, turn.now));
  return { exit: 'next' };
}
