/**
 * bench:engine's calls (bench/README.md), shared by the in-process figure (run.ts) and the
 * interleaved A/B (ab-harness.ts, bundled once per version: this file is copied beside it, so
 * its `@voxplan/*` resolve to that version's packages). The 20-block IVR of
 * fixtures/plans/benchmark-ivr.json on in-memory ports, three kinds of call in rotation; the same
 * calls are scenarios in fixtures/plans/scenarios/benchmark-ivr.json.
 */
import fs from 'node:fs';
import { compilePlan } from '@voxplan/blocks/runtime';
import { type EngineEvent, type EnginePorts, type Session, type SessionInit, handleEvent, startSession } from '@voxplan/engine';
import type { ScriptRunner } from '@voxplan/engine/ports';
import { type MemoryLog, type MemoryWorld, memoryPorts } from '@voxplan/engine/testing';

/** The events after `start` of each kind of call, and the disposition it must end with. */
export const calls: Array<{ name: string; events: EngineEvent[]; disposition: string }> = [
  { name: 'sales, answered', events: [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }], disposition: 'routed' },
  { name: 'support, then the survey', events: [{ type: 'digits', digits: '2' }, { type: 'digits', digits: '1' }, { type: 'digits', digits: '5' }], disposition: 'retained' },
  { name: 'billing, then the survey', events: [{ type: 'digits', digits: '3' }, { type: 'digits', digits: '4' }], disposition: 'retained' },
];
export type CallKind = (typeof calls)[number];

export interface Fixture {
  /** Blocks in the plan. */
  blocks: number;
  /**
   * Runs one call to its end; returns its turns. `check`: on the checked ports (real Lua), and it
   * must end as its kind says. `store`: what a host storing the session between turns does to it.
   */
  call(kind: CallKind, check: boolean, store?: (session: Session) => Session): Promise<number>;
}

/** The plan on two sets of memory ports: `checkedLua` for the checked calls, `replayedLua` for the measured ones. */
export function engineFixture(planFile: string, checkedLua: ScriptRunner, replayedLua: ScriptRunner): Fixture {
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
  const init = (): SessionInit => ({
    id: `bench-${++sessionCounter}`,
    tenant_id: 1,
    plan_id: plan.id,
    channel: 'voice',
    provider: 'simulator',
    caller: '+5511999990000',
    called: '+551130000000',
  });
  return {
    blocks: plan.nodes.size,
    async call(kind, check, store = (session) => session) {
      const callPorts: EnginePorts & { log: MemoryLog } = check ? checkedPorts : ports;
      let result: { session: Session } = await startSession(init(), callPorts);
      for (const event of kind.events) result = await handleEvent(store(result.session), event, callPorts);
      if (check && (result.session.status !== 'ended' || result.session.disposition !== kind.disposition || result.session.failure)) {
        throw new Error(`call '${kind.name}' ended ${result.session.status}/${result.session.disposition}: ${JSON.stringify(result.session.failure)}`);
      }
      // The in-memory ports keep every request for tests to read; a benchmark must not grow them.
      for (const list of Object.values(callPorts.log)) list.length = 0;
      return 1 + kind.events.length;
    },
  };
}
