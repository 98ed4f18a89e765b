/**
 * The calls of bench:engine as a module, bundled once per version by `ab.ts`: each bundle
 * resolves `@voxplan/*` to its own tree, so two versions of the engine run side by side in one
 * process. Lua comes from the caller: real Lua for the checked calls, its answers replayed after.
 */
import fs from 'node:fs';
import { compilePlan } from '@voxplan/blocks/runtime';
import { type EngineEvent, type Session, type SessionInit, handleEvent, startSession } from '@voxplan/engine';
import type { ScriptRunner } from '@voxplan/engine/ports';
import { type MemoryWorld, memoryPorts } from '@voxplan/engine/testing';

export const calls: Array<{ name: string; events: EngineEvent[]; disposition: string }> = [
  { name: 'sales, answered', events: [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }], disposition: 'routed' },
  { name: 'support, then the survey', events: [{ type: 'digits', digits: '2' }, { type: 'digits', digits: '1' }, { type: 'digits', digits: '5' }], disposition: 'retained' },
  { name: 'billing, then the survey', events: [{ type: 'digits', digits: '3' }, { type: 'digits', digits: '4' }], disposition: 'retained' },
];

export interface Harness {
  /** Runs each kind of call once and throws unless it ends as it must. */
  check(): Promise<void>;
  /** Runs calls in rotation for about `ms` of wall time; returns the turns run. */
  slice(ms: number): Promise<number>;
}

export function harness(planFile: string, checkedLua: ScriptRunner, replayedLua: ScriptRunner): Harness {
  const plan = compilePlan(JSON.parse(fs.readFileSync(planFile, 'utf8')) as unknown);
  const world: MemoryWorld = {
    plans: [plan],
    destinations: [{ id: 1, name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example' }],
    schedules: { 1: 'in_hours' },
    http: [{ url: 'https://crm.example/api/customers', body: { customer: { name: 'Ana', tier: 'gold' } } }],
  };
  const checkedPorts = memoryPorts(world, checkedLua);
  const ports = memoryPorts(world, replayedLua);
  let sessionCounter = 0;
  let count = 0;
  const init = (): SessionInit => ({
    id: `bench-${++sessionCounter}`,
    tenant_id: 1,
    plan_id: plan.id,
    channel: 'voice',
    provider: 'simulator',
    caller: '+5511999990000',
    called: '+551130000000',
  });
  async function call(kind: (typeof calls)[number], check: boolean): Promise<number> {
    const callPorts = check ? checkedPorts : ports;
    let result: { session: Session } = await startSession(init(), callPorts);
    for (const event of kind.events) result = await handleEvent(result.session, event, callPorts);
    if (check && (result.session.status !== 'ended' || result.session.disposition !== kind.disposition || result.session.failure)) {
      throw new Error(`call '${kind.name}' ended ${result.session.status}/${result.session.disposition}: ${JSON.stringify(result.session.failure)}`);
    }
    for (const list of Object.values(callPorts.log)) list.length = 0;
    return 1 + kind.events.length;
  }
  return {
    async check() {
      for (const kind of calls) await call(kind, true);
    },
    async slice(ms) {
      const deadline = performance.now() + ms;
      let turns = 0;
      while (performance.now() < deadline) {
        for (let i = 0; i < 30; i++) turns += await call(calls[count++ % calls.length]!, false);
      }
      return turns;
    },
  };
}
