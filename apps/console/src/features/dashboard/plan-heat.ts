/**
 * What a plan's statistics draw on its canvas: how many sessions ended at each block (the drop-off
 * heat map) and the keys pressed at each voice menu. Pure, so the figures are tested apart.
 */
import type { StatsPlanDetail } from '@voxplan/contracts';

export interface BlockDropOff {
  entered: number;
  ended: number;
  /** ended / the plan's sessions, 0 to 1. */
  share: number;
}

/**
 * The drop-off of each block of the plan itself (blocks of plans it called carry their own
 * plan_id and are left out), by node id. Blocks of the graph without figures were not reached.
 */
export function dropOffByBlock(detail: StatsPlanDetail): Map<string, BlockDropOff> {
  const sessions = detail.figures.sessions;
  const byBlock = new Map<string, BlockDropOff>();
  for (const node of detail.nodes) {
    if (node.plan_id !== detail.plan_id) continue;
    byBlock.set(node.node_id, { entered: node.entered, ended: node.ended, share: sessions > 0 ? Math.min(1, node.ended / sessions) : 0 });
  }
  return byBlock;
}

/**
 * How hot a block is drawn: its share of the sessions that ended there, against the block where
 * most ended (so that the worst block is always fully red, however spread the endings are).
 */
export function heatOf(dropOff: BlockDropOff, byBlock: ReadonlyMap<string, BlockDropOff>): number {
  let most = 0;
  for (const block of byBlock.values()) most = Math.max(most, block.ended);
  return most > 0 ? dropOff.ended / most : 0;
}

export interface MenuDigits {
  nodeId: string;
  total: number;
  /** Most pressed first. */
  keys: { digits: string; count: number }[];
}

/** Keys pressed per voice menu of the plan itself, the busiest menu first. */
export function digitsByMenu(detail: StatsPlanDetail): MenuDigits[] {
  const menus = new Map<string, MenuDigits>();
  for (const entry of detail.digits) {
    if (entry.plan_id !== detail.plan_id) continue;
    let menu = menus.get(entry.node_id);
    if (!menu) menus.set(entry.node_id, (menu = { nodeId: entry.node_id, total: 0, keys: [] }));
    menu.total += entry.count;
    menu.keys.push({ digits: entry.digits, count: entry.count });
  }
  for (const menu of menus.values()) menu.keys.sort((a, b) => b.count - a.count || a.digits.localeCompare(b.digits));
  return [...menus.values()].sort((a, b) => b.total - a.total || a.nodeId.localeCompare(b.nodeId));
}
