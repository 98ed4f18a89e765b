/** A `valueText` field compiled: a template, or an expression after `=`. */
import { compileExpression, compileTemplate, type Turn, type Value } from '@voxplan/engine';

export type CompiledValue = (turn: Turn) => Value;

export function compileValue(source: string): CompiledValue {
  if (source.startsWith('=')) {
    const expression = compileExpression(source.slice(1));
    return (turn) => expression.evaluate(turn.scope);
  }
  const template = compileTemplate(source);
  return (turn) => turn.render(template);
}
