/**
 * The required fields the plan's blocks leave empty, as issues the editor shows while the plan is
 * edited, not only once a save is refused. The check is the blocks' schemas (zod), which load with
 * the forms' module; until it has loaded, only the server's issues show.
 */
import type { blockEditor, EditorLanguage, EmptyRequiredField, emptyRequiredFields } from '@voxplan/blocks/editor';
import type { TFunction } from 'i18next';
import { useEffect, useState } from 'react';
import type { DecorationStore, PlanIssue } from './decorations.ts';
import type { GraphNode } from './graph-state.ts';

/** What is used of the forms' module, loaded on demand. */
interface FormsModule {
  blockEditor: typeof blockEditor;
  emptyRequiredFields: typeof emptyRequiredFields;
}

export function useEmptyFieldIssues(nodes: readonly GraphNode[], decorations: DecorationStore, language: EditorLanguage, t: TFunction, enabled: boolean): void {
  const [forms, setForms] = useState<FormsModule>();
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    void import('@voxplan/blocks/editor').then((module) => current && setForms(module));
    return () => {
      current = false;
    };
  }, [enabled]);
  // A block's data is a new object only when it was edited: a keystroke checks that one block again, not the plan.
  const [cache] = useState(() => new Map<EditorLanguage, WeakMap<Record<string, unknown>, EmptyRequiredField[]>>());
  useEffect(() => {
    if (!forms || !enabled) return;
    let checked = cache.get(language);
    if (!checked) cache.set(language, (checked = new WeakMap()));
    const issues: PlanIssue[] = [];
    for (const node of nodes) {
      let empty = checked.get(node.data);
      if (!empty) {
        const editor = forms.blockEditor(node.type);
        empty = editor ? forms.emptyRequiredFields(editor, node.data, language) : [];
        checked.set(node.data, empty);
      }
      for (const field of empty) issues.push({ code: 'required_empty', message: t('editor.issues.requiredEmpty', { field: field.label }), node_id: node.id, path: field.path });
    }
    decorations.setEmptyFields(issues);
  }, [cache, decorations, enabled, forms, language, nodes, t]);
}
