/**
 * The calls of bench:engine as a module, bundled once per version by `ab.ts`: each bundle
 * resolves `@voxplan/*` to its own tree, so two versions of the engine run side by side in one
 * process. Lua comes from the caller: real Lua for the checked calls, its answers replayed after.
 * The calls themselves are bench:engine's (fixture.ts).
 */
import type { ScriptRunner } from '@voxplan/engine/ports';
import { calls, engineFixture } from './fixture.ts';

export interface Harness {
  /** Runs each kind of call once and throws unless it ends as it must. */
  check(): Promise<void>;
  /** Runs calls in rotation for about `ms` of wall time; returns the turns run. */
  slice(ms: number): Promise<number>;
}

export function harness(planFile: string, checkedLua: ScriptRunner, replayedLua: ScriptRunner): Harness {
  const fixture = engineFixture(planFile, checkedLua, replayedLua);
  let count = 0;
  return {
    async check() {
      for (const kind of calls) await fixture.call(kind, true);
    },
    async slice(ms) {
      const deadline = performance.now() + ms;
      let turns = 0;
      while (performance.now() < deadline) {
        for (let i = 0; i < 30; i++) turns += await fixture.call(calls[count++ % calls.length]!, false);
      }
      return turns;
    },
  };
}
