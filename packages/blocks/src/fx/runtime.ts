import { fromForeign } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { fxBlock } from './definition.ts';

export const fxRuntime = defineRuntime(fxBlock, {
  compile: (data) => ({ script: data.script, returns: new Set(data.returns) }),
  async enter(turn, node) {
    let result;
    try {
      result = await turn.ports.scripts.run({ script: node.config.script, vars: turn.variables() });
    } catch {
      return { exit: 'error' };
    }
    // A script error, a CPU or memory limit, or an exit the block does not declare.
    if (!result.ok || !node.config.returns.has(result.exit)) return { exit: 'error' };
    for (const [name, value] of Object.entries(result.set)) turn.setVariable(name, fromForeign(value));
    return { exit: result.exit };
  },
});
