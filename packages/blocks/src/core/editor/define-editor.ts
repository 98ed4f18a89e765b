import type { BlockDescription } from '../define.ts';
import type { BlockEditor } from './types.ts';

/**
 * A block's editor part: what its folder's `editor.ts` exports, beside its description. It takes
 * the description, not the definition, so that the canvas (icons, summaries, exits) loads no zod.
 */
export function defineEditor(parts: {
  description: BlockDescription;
  icon: BlockEditor['icon'];
  color: string;
  summary: BlockEditor['summary'];
  fieldHints?: BlockEditor['fieldHints'];
  exitLabel?: BlockEditor['exitLabel'];
  /** Changes to the schema's defaults where those alone are not a usable block (a menu starts with an option). */
  initialData?: Readonly<Record<string, unknown>>;
  derived?: BlockEditor['derived'];
  Form?: BlockEditor['Form'];
}): BlockEditor {
  const { description } = parts;
  return {
    type: description.type,
    description,
    icon: parts.icon,
    color: parts.color,
    summary: parts.summary,
    fieldHints: parts.fieldHints ?? {},
    ...(parts.initialData ? { initialData: parts.initialData } : {}),
    ...(parts.exitLabel ? { exitLabel: parts.exitLabel } : {}),
    ...(parts.derived ? { derived: parts.derived } : {}),
    ...(parts.Form ? { Form: parts.Form } : {}),
  };
}
