/** The records a plan points at, for the server to check they exist in the tenant. */
import { readJsonPath } from '@voxplan/engine';
import type { ReferenceKind } from '../core/define.ts';
import { blockDefinition } from '../registry.ts';
import type { ValidatedDocument } from './validate.ts';

export interface PlanReference {
  node_id: string;
  /** The field in the node's data. */
  path: string;
  kind: ReferenceKind;
  id: number;
}

export function planReferences(content: ValidatedDocument): PlanReference[] {
  const references: PlanReference[] = [];
  for (const node of content.nodes) {
    for (const field of blockDefinition(node.type)?.references ?? []) {
      const id = readJsonPath(node.data, field.path.split('.'));
      if (typeof id === 'number') references.push({ node_id: node.id, path: field.path, kind: field.kind, id });
    }
  }
  return references;
}
