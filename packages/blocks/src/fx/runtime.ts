import { fromForeign, type Outcome, type ScriptResult, type Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { fxBlock } from './definition.ts';

export const fxRuntime = defineRuntime(fxBlock, {
  compile: (data) => ({ script: data.script, returns: new Set(data.returns) }),
  // A promise only when the runner answers with one (a real Lua run always does).
  enter(turn, node) {
    let result;
    try {
      result = turn.ports.scripts.run({ script: node.config.script, vars: turn.variables() });
    } catch {
      return { exit: 'error' };
    }
    const { returns } = node.config;
    return result instanceof Promise ? result.then((answered) => exitOf(turn, returns, answered), scriptFailed) : exitOf(turn, returns, result);
  },
});

const scriptFailed = (): Outcome => ({ exit: 'error' });

function exitOf(turn: Turn, returns: ReadonlySet<string>, result: ScriptResult): Outcome {
  // A script error, a CPU or memory limit, or an exit the block does not declare.
  if (!result.ok || !returns.has(result.exit)) return { exit: 'error' };
  for (const [name, value] of Object.entries(result.set)) turn.setVariable(name, fromForeign(value));
  return { exit: result.exit };
}
