import type { BlockDefinition } from '../define.ts';
import { initialDataOf } from './form-model.ts';
import type { BlockEditor } from './types.ts';

/** A block's editor part: what its folder's `editor.ts` exports, beside its definition. */
export function defineEditor(parts: {
  definition: BlockDefinition;
  icon: BlockEditor['icon'];
  color: string;
  summary: BlockEditor['summary'];
  fieldHints?: BlockEditor['fieldHints'];
  exitLabel?: BlockEditor['exitLabel'];
  /** Changes to the schema's defaults where those alone are not a usable block (a menu starts with an option). */
  initialData?: Readonly<Record<string, unknown>>;
  Form?: BlockEditor['Form'];
}): BlockEditor {
  const { definition } = parts;
  const initialData = { ...initialDataOf(definition.schema), ...parts.initialData };
  return {
    type: definition.type,
    definition,
    icon: parts.icon,
    color: parts.color,
    summary: parts.summary,
    fieldHints: parts.fieldHints ?? {},
    // Always given (required references left empty), and a fresh copy each time: two new blocks never share a list.
    get initialData() {
      return structuredClone(initialData);
    },
    ...(parts.exitLabel ? { exitLabel: parts.exitLabel } : {}),
    ...(parts.Form ? { Form: parts.Form } : {}),
  };
}
