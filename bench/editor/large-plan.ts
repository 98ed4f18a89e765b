/**
 * A large plan as people build them: copies of the 20-block IVR of fixtures/plans/benchmark-ivr.json
 * (date range, messages, recording, variables, an HTTP lookup, conditions, menus, a destination, Lua,
 * a survey), one start, each copy's closing message leading on to the next copy, laid out on a grid.
 * Used by bench:editor and by the API test that saves a plan at the size limit.
 */
import fs from 'node:fs';
import path from 'node:path';

interface FixtureNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}
interface FixtureEdge {
  id: string;
  source: string;
  source_exit: string;
  target: string;
}

const ivr = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/plans/benchmark-ivr.json'), 'utf8')) as {
  nodes: FixtureNode[];
  edges: FixtureEdge[];
};

/** The records a plan's blocks refer to: they must exist in the plan's tenant. */
export interface LargePlanReferences {
  destinationId: number;
  dateRangeId: number;
}

/** Grid spacing: wider and taller than a block, so that the canvas has room between them. */
export const GRID = { columns: 40, width: 280, height: 180 };

/**
 * `blocks` blocks (the start included) and their edges, as the body of a save (`format_version`,
 * `nodes`, `edges`). A copy cut short by `blocks` keeps the edges between the blocks it has.
 */
export function largePlan(blocks: number, references: LargePlanReferences) {
  const body = ivr.nodes.filter((node) => node.type !== 'start');
  const start = ivr.nodes.find((node) => node.type === 'start')!;
  const copies = Math.ceil((blocks - 1) / body.length);
  const nodes: FixtureNode[] = [{ ...start, data: { ...start.data } }];
  for (let copy = 0; copy < copies; copy++) {
    for (const node of body) {
      if (nodes.length === blocks) break;
      let data = { ...node.data };
      if (node.type === 'destination') data = { ...data, destination_id: references.destinationId };
      if (node.type === 'date_range') data = { ...data, date_range_id: references.dateRangeId };
      if (node.type === 'play_message' && typeof data.voice_text === 'string') data = { ...data, voice_text: `${data.voice_text} (${copy + 1})` };
      nodes.push({ id: `${node.id}-${copy}`, type: node.type, position: { x: 0, y: 0 }, data });
    }
  }
  nodes.forEach((node, index) => {
    node.position = { x: (index % GRID.columns) * GRID.width, y: Math.floor(index / GRID.columns) * GRID.height };
  });
  const ids = new Set(nodes.map((node) => node.id));
  const entry = ivr.edges.find((edge) => edge.source === start.id)!;
  const edges: FixtureEdge[] = [{ ...entry, target: `${entry.target}-0` }];
  for (let copy = 0; copy < copies; copy++) {
    for (const edge of ivr.edges) {
      if (edge.source === start.id) continue;
      let target = `${edge.target}-${copy}`;
      // The closed message goes on to the next copy's date range check instead of hanging up.
      if (edge.source === 'closed' && ids.has(`${entry.target}-${copy + 1}`)) target = `${entry.target}-${copy + 1}`;
      const source = `${edge.source}-${copy}`;
      if (ids.has(source) && ids.has(target)) edges.push({ id: `${edge.id}-${copy}`, source, source_exit: edge.source_exit, target });
    }
  }
  return { format_version: 1 as const, nodes, edges };
}
