/**
 * Runs the scenarios of fixtures/plans/scenarios against the plans of fixtures/plans, with the
 * in-memory ports and real Lua: an `fx` block's exit is what its script answers for the session's
 * variables. Used by fixtures.test.ts; channel and end-to-end tests can drive the same files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compilePlan } from '@voxplan/blocks/runtime';
import type { Action } from '../actions.ts';
import type { EngineEvent } from '../events.ts';
import { handleEvent, startSession, type TurnResult } from '../interpreter.ts';
import type { ScriptResult, ScriptRunner } from '../ports.ts';
import type { CompiledPlan } from '../runtime.ts';
import type { Channel, Provider, Session } from '../session.ts';
import { type MemoryWorld, memoryPorts } from './memory-ports.ts';

export const fixturesDir = path.resolve(import.meta.dirname, '../../../../fixtures/plans');

export interface ScenarioTurn {
  /** The first turn's event is `start`; it may be left out. */
  event: EngineEvent;
  /** The actions this turn must produce, exactly. */
  actions?: Action[];
  status?: Session['status'];
  ignored?: boolean;
}

export interface Scenario {
  name: string;
  /** The plan the session starts in: its fixture file name without `.json`. */
  plan: string;
  channel: Channel;
  provider?: Provider;
  /** Merged over scenarios/world.json, key by key. */
  world?: MemoryWorld;
  turns: ScenarioTurn[];
  /** Every block entered, in order, as `node:exit` (a plan other than the first as `plan/node:exit`). */
  path?: string[];
  /** Fields the last report must have (a partial match). */
  report?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  /**
   * What each Lua run answered, in order: an exit and the variables it set (`{}` when left out),
   * or a failure's reason and a text its message contains. Left out: the session runs no Lua.
   */
  lua?: ExpectedLua[];
}

export type ExpectedLua = { exit: string; set?: Record<string, unknown> } | { reason: Extract<ScriptResult, { ok: false }>['reason']; message?: string };

export interface ScenarioRun {
  results: TurnResult[];
  session: Session;
  ports: ReturnType<typeof memoryPorts>;
  plans: ReadonlyMap<number, CompiledPlan>;
  /** The session's path in the scenario's notation. */
  path: string[];
}

export function loadFixturePlans(): Map<string, { raw: unknown; plan: CompiledPlan }> {
  const plans = new Map<string, { raw: unknown; plan: CompiledPlan }>();
  for (const file of fs.readdirSync(fixturesDir).filter((name) => name.endsWith('.json')).sort()) {
    const raw: unknown = JSON.parse(fs.readFileSync(path.join(fixturesDir, file), 'utf8'));
    plans.set(file.replace(/\.json$/, ''), { raw, plan: compilePlan(raw) });
  }
  return plans;
}

export function loadScenarios(): Array<{ file: string; scenario: Scenario }> {
  const dir = path.join(fixturesDir, 'scenarios');
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json') && name !== 'world.json')
    .sort()
    .flatMap((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Scenario[]).map((scenario) => ({ file, scenario })));
}

export function loadWorld(): MemoryWorld {
  return JSON.parse(fs.readFileSync(path.join(fixturesDir, 'scenarios', 'world.json'), 'utf8')) as MemoryWorld;
}

export interface ScenarioOptions {
  plans?: ReturnType<typeof loadFixturePlans>;
  world?: MemoryWorld;
  /** Runs the `fx` scripts: a `LuaScriptRunner` the caller starts and closes (memoryPorts' own if left out). */
  scripts?: ScriptRunner;
}

export async function runScenario(scenario: Scenario, { plans = loadFixturePlans(), world = loadWorld(), scripts }: ScenarioOptions = {}): Promise<ScenarioRun> {
  const entry = plans.get(scenario.plan);
  if (!entry) throw new Error(`no fixture plan '${scenario.plan}'`);
  const compiled = [...plans.values()].map((item) => item.plan);
  const ports = memoryPorts({ ...world, ...scenario.world, plans: compiled }, scripts);
  const [first, ...rest] = scenario.turns;
  if (first && first.event.type !== 'start') throw new Error(`${scenario.name}: the first turn starts the session`);
  const results: TurnResult[] = [
    await startSession(
      {
        id: `fixture-${scenario.channel}`,
        tenant_id: entry.plan.tenant_id,
        plan_id: entry.plan.id,
        channel: scenario.channel,
        provider: scenario.provider ?? (scenario.channel === 'voice' ? 'twilio' : 'webchat'),
        caller: '+5511999990000',
        called: '+551130000000',
      },
      ports,
    ),
  ];
  for (const turn of rest) results.push(await handleEvent(results.at(-1)!.session, turn.event, ports));
  const session = results.at(-1)!.session;
  const byId = new Map(compiled.map((plan) => [plan.id, plan]));
  const names = new Map([...plans].map(([name, item]) => [item.plan.id, name]));
  const notation = session.path.map((entry) => {
    const prefix = entry.plan_id !== session.plan_id ? `${names.get(entry.plan_id)}/` : '';
    return `${prefix}${entry.node_id}${entry.exit === null ? '' : `:${entry.exit}`}`;
  });
  return { results, session, ports, plans: byId, path: notation };
}
