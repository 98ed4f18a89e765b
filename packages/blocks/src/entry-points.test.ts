import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const packagesDir = path.resolve(import.meta.dirname, '../..');
const packageImports = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8')) as { imports: Record<string, Record<string, string>> }).imports;

/**
 * Every file a module loads at run time (type-only imports are erased), following relative and
 * workspace imports, and the package's own `#` imports as a server (`default`) or a browser resolves them.
 */
function runtimeClosure(entry: string, seen = new Set<string>(), condition: 'default' | 'browser' = 'default'): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = fs.readFileSync(entry, 'utf8');
  for (const match of source.matchAll(/^(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gm)) {
    const specifier = match[1]!;
    let resolved: string | undefined;
    if (specifier.startsWith('.')) resolved = path.resolve(path.dirname(entry), specifier);
    else if (specifier.startsWith('#')) resolved = path.resolve(import.meta.dirname, '..', packageImports[specifier]![condition]!);
    else if (specifier === '@voxplan/engine') resolved = path.join(packagesDir, 'engine/src/index.ts');
    // The voices list: a contract of its own that imports nothing, so every side may read it.
    else if (specifier === '@voxplan/contracts/voices') resolved = path.join(packagesDir, 'contracts/src/voices.ts');
    else if (specifier.startsWith('@voxplan/')) throw new Error(`unexpected workspace import ${specifier} in ${entry}`);
    else {
      seen.add(`package:${specifier}`);
      continue;
    }
    if (resolved.endsWith('.ts') || resolved.endsWith('.tsx')) runtimeClosure(resolved, seen, condition);
  }
  return seen;
}

test('the definitions entry point loads no block runtime, no Node module and nothing but zod, safe-regex2 and re2js from outside', () => {
  const files = [...runtimeClosure(path.join(import.meta.dirname, 'definitions.ts'))];
  expect(files.filter((file) => file.endsWith('/runtime.ts') && file.includes('/blocks/src/'))).toEqual([]);
  // re2js (pure JavaScript): a `matches` pattern is refused when saved by the engine that will run it.
  expect(files.filter((file) => file.startsWith('package:')).sort()).toEqual(['package:re2js', 'package:safe-regex2', 'package:zod']);
  expect(files.some((file) => file.includes('compile.ts') || file.includes('runtime-registry.ts'))).toBe(false);
  // Nothing of the editor (React, forms) comes along: the server loads this entry.
  expect(files.filter((file) => file.includes('/core/editor/') || file.endsWith('.tsx') || file.endsWith('editor.ts'))).toEqual([]);
});

test('the editor entry point, as a browser loads it, loads no block runtime, no Node module and no RE2: only zod, React, Mantine and the icons besides', () => {
  const files = [...runtimeClosure(path.join(import.meta.dirname, 'editor.ts'), new Set(), 'browser')];
  expect(files.filter((file) => file.endsWith('/runtime.ts') && file.includes('/blocks/src/'))).toEqual([]);
  expect(files.some((file) => file.includes('compile.ts') || file.includes('runtime-registry.ts'))).toBe(false);
  expect(files.filter((file) => file.startsWith('package:')).sort()).toEqual([
    'package:@mantine/core',
    'package:@tabler/icons-react',
    'package:react',
    'package:zod',
    // Portuguese issue texts; the one locale, not `z.locales` with every language.
    'package:zod/v4/locales/pt-BR.js',
  ]);
  // Every block's editor part, and the form renderer.
  expect(files.filter((file) => /\/blocks\/src\/[a-z_]+\/editor\.ts$/.test(file))).toHaveLength(19);
  expect(files.some((file) => file.endsWith('/core/editor/BlockForm.tsx'))).toBe(true);
});

test("the canvas's entry point (the editor registry) loads no zod: no schema, no validator, no form", () => {
  const files = [...runtimeClosure(path.join(import.meta.dirname, 'editor-registry.ts'), new Set(), 'browser')];
  expect(files.filter((file) => file.startsWith('package:')).sort()).toEqual(['package:@tabler/icons-react']);
  // Each block's description and editor part, never its definition (schema) nor the plan's schemas.
  expect(files.filter((file) => /\/blocks\/src\/[a-z_]+\/description\.ts$/.test(file))).toHaveLength(19);
  expect(files.filter((file) => file.endsWith('/definition.ts') || file.includes('/plan/document.ts') || file.includes('/core/fields.ts') || file.includes('form-model.ts'))).toEqual([]);
});

test('in a browser, the definitions check a pattern without RE2 (64 KB gzip): the server compiles it with RE2 on save', () => {
  const files = [...runtimeClosure(path.join(import.meta.dirname, 'definitions.ts'), new Set(), 'browser')];
  expect(files.filter((file) => file.startsWith('package:')).sort()).toEqual(['package:zod']);
});

test('the runtime entry point loads every block runtime', () => {
  const files = [...runtimeClosure(path.join(import.meta.dirname, 'runtime.ts'))];
  expect(files.filter((file) => /\/blocks\/src\/[a-z_]+\/runtime\.ts$/.test(file))).toHaveLength(19);
});
