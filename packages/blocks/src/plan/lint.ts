/** Warnings about a valid plan: things that run, but probably not as the author meant. */
import type { PlanIssue, PlanWarningCode } from './issues.ts';
import { readJsonPath } from '@voxplan/engine';
import { blockDefinition, exitsOf } from '../registry.ts';
import type { ValidatedDocument } from './document.ts';
import { connectionWarnings, exitTargets } from './connection-warnings.ts';
import { contentWarnings } from './content-warnings.ts';

export function lintPlan(content: ValidatedDocument): Array<PlanIssue<PlanWarningCode>> {
  const next = exitTargets(content);
  const warnings = connectionWarnings(content, exitsOf, (type) => blockDefinition(type)?.quietExits ?? [], next);
  warnings.push(...contentWarnings(content.nodes));

  for (const loop of loopsWithoutInput(content, next)) {
    warnings.push({
      code: 'loop_without_input',
      message: `blocks ${loop.map((id) => `'${id}'`).join(', ')} form a loop that waits for no input; it runs until the step limit ends the session`,
      node_id: loop[0]!,
      path: '',
    });
  }
  return warnings;
}

/** Strongly connected groups of blocks that never wait (Tarjan's algorithm), iteratively to spare the stack. */
function loopsWithoutInput(content: ValidatedDocument, next: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const isBusy = new Map(content.nodes.map((node) => [node.id, blockDefinition(node.type)?.waitsForInput === false]));
  const successors = (id: string) => [...(next.get(id)?.values() ?? [])].filter((target) => isBusy.get(target) === true);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const loops: string[][] = [];
  let counter = 0;

  for (const root of content.nodes) {
    if (!isBusy.get(root.id) || index.has(root.id)) continue;
    const work: Array<{ id: string; children: string[]; position: number }> = [];
    const open = (id: string) => {
      index.set(id, counter);
      low.set(id, counter);
      counter++;
      stack.push(id);
      onStack.add(id);
      work.push({ id, children: successors(id), position: 0 });
    };
    open(root.id);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      if (frame.position < frame.children.length) {
        const child = frame.children[frame.position++]!;
        if (!index.has(child)) open(child);
        else if (onStack.has(child)) low.set(frame.id, Math.min(low.get(frame.id)!, index.get(child)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) !== index.get(frame.id)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.id);
      const isSelfLoop = group.length === 1 && successors(group[0]!).includes(group[0]!);
      if (group.length > 1 || isSelfLoop) loops.push(group.reverse());
    }
  }
  return loops;
}

/**
 * Warnings for `call_plan` blocks whose call comes back to this plan through other plans
 * (A → B → A). `calls` maps the tenant's other plans to the plans their blocks call; this plan's
 * own calls are read from `content`. The engine stops such a session at call depth 8.
 */
export function callPlanCycles(content: ValidatedDocument, planId: number, calls: ReadonlyMap<number, Iterable<number>>): Array<PlanIssue<PlanWarningCode>> {
  const warnings: Array<PlanIssue<PlanWarningCode>> = [];
  for (const node of content.nodes) {
    if (node.type !== 'call_plan') continue;
    const target = (node.data as { plan_id: number }).plan_id;
    const route = routeBack(target, planId, calls);
    if (!route) continue;
    warnings.push({
      code: 'call_plan_cycle',
      message: `the call goes round plans ${[planId, ...route].join(' → ')}: a session that follows it ends at the call depth limit`,
      node_id: node.id,
      path: 'plan_id',
    });
  }
  return warnings;
}

/** The shortest chain of calls from `from` to `to` (both included), breadth first; undefined when there is none. */
function routeBack(from: number, to: number, calls: ReadonlyMap<number, Iterable<number>>): number[] | undefined {
  const cameFrom = new Map<number, number | undefined>([[from, undefined]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const plan = queue[head]!;
    if (plan === to) {
      const route: number[] = [];
      for (let step: number | undefined = plan; step !== undefined; step = cameFrom.get(step)) route.unshift(step);
      return route;
    }
    for (const next of calls.get(plan) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, plan);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * Warnings for blocks that name a choice whose system setting is off (the second AI provider while
 * `feature_second_ai_provider` is off): the plan runs, but such a block takes its error exit.
 * `isSettingOn` answers for the settings the definitions' `settingGates` name.
 */
export function settingsOff(content: ValidatedDocument, isSettingOn: (setting: string) => boolean): Array<PlanIssue<PlanWarningCode>> {
  const warnings: Array<PlanIssue<PlanWarningCode>> = [];
  for (const node of content.nodes) {
    for (const gate of blockDefinition(node.type)?.settingGates ?? []) {
      if (readJsonPath(node.data, gate.path.split('.')) !== gate.option || isSettingOn(gate.setting)) continue;
      warnings.push({
        code: 'setting_off',
        message: `'${gate.option}' works only while the system setting ${gate.setting} is on: the block takes its error exit`,
        node_id: node.id,
        path: gate.path,
      });
    }
  }
  return warnings;
}
