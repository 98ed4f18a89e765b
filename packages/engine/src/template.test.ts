import { expect, test } from 'vitest';
import { compileTemplate, templateVariables } from './template.ts';
import type { Value } from './values.ts';

const vars: Record<string, Value> = { caller: '+5511999', count: 2, ok: true, none: null };
const scope = (name: string): Value => (Object.hasOwn(vars, name) ? vars[name]! : null);

test('names in double braces are replaced by their values, unknown ones by nothing', () => {
  expect(compileTemplate('Hi {{caller}}, {{ count }} items, ok={{ok}}, [{{none}}] [{{missing}}]').render(scope)).toBe(
    'Hi +5511999, 2 items, ok=true, [] []',
  );
});

test('braces around anything but a name stay as written', () => {
  expect(compileTemplate('{{ 1 + 1 }} {{a.b}} {caller}').render(scope)).toBe('{{ 1 + 1 }} {{a.b}} {caller}');
});

test('a text without placeholders is static', () => {
  const template = compileTemplate('plain');
  expect(template.isStatic).toBe(true);
  expect(template.render(scope)).toBe('plain');
  expect(templateVariables('{{a}} {{b}} {{a}}')).toEqual(['a', 'b']);
});
