/**
 * `{{name}}` in any text field, replaced by the session variable `name` (blocks.md, "Templates").
 * Compiled once per plan version into literal and variable parts. A name that is not set reads
 * as empty text; braces around anything but a name stay as they are.
 */
import type { Scope } from './expression.ts';
import { maxValueLength, toText } from './values.ts';

export interface Template {
  readonly source: string;
  readonly variables: readonly string[];
  /** True when the text holds no `{{name}}`: `render` then returns the source as is. */
  readonly isStatic: boolean;
  render(scope: Scope): string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export function compileTemplate(source: string): Template {
  const parts: Array<string | { name: string }> = [];
  const variables = new Set<string>();
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push(source.slice(last, match.index));
    parts.push({ name: match[1]! });
    variables.add(match[1]!);
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return { source, variables: [], isStatic: true, render: () => source };
  if (last < source.length) parts.push(source.slice(last));
  return {
    source,
    variables: [...variables],
    isStatic: false,
    render(scope) {
      let out = '';
      for (const part of parts) out += typeof part === 'string' ? part : toText(scope(part.name));
      return out.length > maxValueLength * 4 ? out.slice(0, maxValueLength * 4) : out;
    },
  };
}

/** The variables a text reads, for lint and the editor, without compiling it. */
export function templateVariables(source: string): string[] {
  return [...new Set([...source.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}
