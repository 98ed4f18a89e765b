import type { Dispatch, SetStateAction } from 'react';
import type { EditorHistory } from './graph-state.ts';

/** The blocks and lines selected on the canvas, by id. */
export interface Selection {
  nodes: ReadonlySet<string>;
  edges: ReadonlySet<string>;
}
export const nothingSelected: Selection = { nodes: new Set(), edges: new Set() };

/** The editor's two pieces of state that its hooks change: the plan's history and the selection. */
export type SetHistory = Dispatch<SetStateAction<EditorHistory>>;
export type SetSelection = Dispatch<SetStateAction<Selection>>;

/** The selected ids after React Flow's select changes (a click, a box, a deselection). */
export function withSelectChanges(selected: ReadonlySet<string>, changes: readonly { id: string; selected: boolean }[]): ReadonlySet<string> {
  const next = new Set(selected);
  for (const change of changes) {
    if (change.selected) next.add(change.id);
    else next.delete(change.id);
  }
  return next;
}
