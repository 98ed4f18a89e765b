/** Builds small plans and runs them through the real engine, for the blocks' own tests. */
import { type Action, type Channel, type EngineEvent, type Session, type SessionInit, type TurnResult, handleEvent, startSession } from '@voxplan/engine';
import type { ScriptRunner } from '@voxplan/engine/ports';
import { type MemoryWorld, memoryPorts } from '@voxplan/engine/testing';
import { compilePlan } from './compile.ts';

export interface NodeSpec {
  id: string;
  type: string;
  data?: Record<string, unknown>;
}

/** `[source, exit, target]`. */
export type EdgeSpec = [string, string, string];

export function planDocument(nodes: NodeSpec[], edges: EdgeSpec[] = [], extra: Record<string, unknown> = {}) {
  return {
    id: 1,
    tenant_id: 1,
    name: 'test plan',
    version: 1,
    format_version: 1,
    nodes: nodes.map((node) => ({ id: node.id, type: node.type, position: { x: 0, y: 0 }, data: node.data ?? {} })),
    edges: edges.map(([source, exit, target], index) => ({ id: `e${index}`, source, source_exit: exit, target })),
    ...extra,
  };
}

/** A plan that starts, goes into `node`, and ends in a hangup block per exit named in `exits`. */
export function planAround(node: NodeSpec, exits: string[], extra: Record<string, unknown> = {}) {
  return planDocument(
    [{ id: 'start', type: 'start' }, node, ...exits.map((exit) => ({ id: `end_${exit}`, type: 'hangup' }))],
    [['start', 'next', node.id], ...exits.map((exit): EdgeSpec => [node.id, exit, `end_${exit}`])],
    extra,
  );
}

export interface Run {
  session: Session;
  results: TurnResult[];
  actions: Action[];
  ports: ReturnType<typeof memoryPorts>;
  /** The exit the block `id` left by, the last time. */
  exitOf(id: string): string | undefined;
}

export interface RunOptions {
  channel?: Channel;
  world?: MemoryWorld;
  events?: EngineEvent[];
  plans?: unknown[];
  init?: Partial<SessionInit>;
  /** Runs `fx` scripts: the test file's own `LuaScriptRunner` (memoryPorts' shared one if left out). */
  scripts?: ScriptRunner;
}

export async function runPlan(document: unknown, options: RunOptions = {}): Promise<Run> {
  const plans = [document, ...(options.plans ?? [])].map((plan) => compilePlan(plan));
  const ports = memoryPorts({ ...options.world, plans }, options.scripts);
  const results = [
    await startSession({ id: 'session-1', tenant_id: 1, plan_id: 1, channel: options.channel ?? 'voice', provider: 'simulator', caller: '+5511999990000', called: '+551130000000', ...options.init }, ports),
  ];
  for (const event of options.events ?? []) results.push(await handleEvent(results.at(-1)!.session, event, ports));
  const session = results.at(-1)!.session;
  return {
    session,
    results,
    actions: results.flatMap((result) => result.actions),
    ports,
    exitOf: (id) => session.path.findLast((entry) => entry.node_id === id)?.exit ?? undefined,
  };
}
