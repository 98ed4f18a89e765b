import { defineRuntime } from '../core/define.ts';
import { hangupBlock } from './definition.ts';

export const hangupRuntime = defineRuntime(hangupBlock, {
  compile: (data) => data.cause,
  enter: (_turn, node) => ({ end: node.config }),
});
