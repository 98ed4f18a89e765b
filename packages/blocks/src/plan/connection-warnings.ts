/**
 * The warnings about how a plan's blocks are connected: blocks no path from the start reaches, and
 * exits that lead nowhere. Shared by the server's lint (on save) and the editor (as the user edits),
 * each giving a block's exits in its own way: the server from validated data, the editor from data
 * being typed. Nothing here loads a block's schema.
 */
import type { PlanIssue, PlanWarningCode } from './issues.ts';

interface Linked {
  nodes: readonly { id: string; type: string }[];
  edges: readonly { source: string; source_exit: string; target: string }[];
}

/** Each block's exits to the block they lead to. */
export function exitTargets(content: Linked): Map<string, Map<string, string>> {
  const next = new Map<string, Map<string, string>>();
  for (const node of content.nodes) next.set(node.id, new Map());
  for (const edge of content.edges) next.get(edge.source)?.set(edge.source_exit, edge.target);
  return next;
}

export function connectionWarnings<N extends Linked['nodes'][number]>(
  content: { nodes: readonly N[]; edges: Linked['edges'] },
  exitsOf: (node: N) => readonly string[],
  quietExitsOf: (type: string) => readonly string[],
  next: ReadonlyMap<string, ReadonlyMap<string, string>> = exitTargets(content),
): Array<PlanIssue<PlanWarningCode>> {
  const warnings: Array<PlanIssue<PlanWarningCode>> = [];
  const start = content.nodes.find((node) => node.type === 'start');
  const reached = new Set<string>();
  const queue = start ? [start.id] : [];
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (reached.has(id)) continue;
    reached.add(id);
    for (const target of next.get(id)?.values() ?? []) queue.push(target);
  }

  for (const node of content.nodes) {
    if (!reached.has(node.id)) {
      warnings.push({ code: 'unreachable', message: `no path from the start block leads to '${node.id}'`, node_id: node.id, path: '' });
      continue;
    }
    const targets = next.get(node.id)!;
    const quiet = quietExitsOf(node.type);
    for (const exit of exitsOf(node)) {
      if (targets.has(exit) || quiet.includes(exit)) continue;
      const isMenuFallback = node.type === 'voice_menu' && (exit === 'timeout' || exit === 'invalid');
      warnings.push({
        code: isMenuFallback ? 'voice_menu_exit_unconnected' : 'unconnected_exit',
        message: isMenuFallback
          ? `the menu's '${exit}' exit is not connected: a caller who ${exit === 'timeout' ? 'presses nothing' : 'keeps pressing wrong keys'} is hung up on`
          : `exit '${exit}' is not connected: the session ends there`,
        node_id: node.id,
        path: `exits.${exit}`,
      });
    }
  }
  return warnings;
}
