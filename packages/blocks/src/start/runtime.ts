import type { Outcome, Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { startBlock } from './definition.ts';

export const startRuntime = defineRuntime(startBlock, {
  compile: (data) => data,
  // A promise only when a protocol is generated and its port answers with one: a promise cost a start a microtask and an async frame.
  enter(turn, node) {
    const { session } = turn;
    if (node.config.ignore_call && session.channel === 'voice') return { end: 'rejected', reject: true };
    // A plan entered through call_plan keeps the protocol the session already has.
    if (node.config.generate_protocol && session.protocol === null) return generateProtocol(turn);
    return { exit: 'next' };
  },
});

function generateProtocol(turn: Turn): Outcome | Promise<Outcome> {
  const protocol = turn.ports.protocols.next(turn.session.tenant_id, turn.now);
  if (protocol instanceof Promise) return protocol.then((generated) => withProtocol(turn, generated));
  return withProtocol(turn, protocol);
}

function withProtocol(turn: Turn, protocol: string): Outcome {
  turn.setProtocol(protocol);
  return { exit: 'next' };
}
