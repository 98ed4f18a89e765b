/**
 * en.json and pt.json must have the same keys, and no value may be empty; no object may name a
 * key twice. Run by `npm run check`.
 */
import fs from 'node:fs';
import path from 'node:path';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(full, value);
    else for (const [k, v] of flatten(value, full)) out.set(k, v);
  }
  return out;
}

export function compareCatalogues(en: Tree, pt: Tree): string[] {
  const left = flatten(en);
  const right = flatten(pt);
  const problems: string[] = [];
  for (const key of left.keys()) if (!right.has(key)) problems.push(`missing in pt: ${key}`);
  for (const key of right.keys()) if (!left.has(key)) problems.push(`missing in en: ${key}`);
  for (const [key, value] of [...left, ...right]) if (value.trim() === '') problems.push(`empty text: ${key}`);
  return problems;
}

/**
 * Keys an object of the JSON text names twice, by their dotted path. JSON.parse keeps the last one
 * silently: two branches that each add a top-level "validation" merge cleanly as text and lose one.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  const objects: { keys: Set<string>; path: string }[] = [];
  let lastKey = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const value = JSON.parse(text.slice(i, end + 1)) as string;
      i = end;
      const top = objects.at(-1);
      if (top && /^\s*:/.test(text.slice(end + 1, end + 20))) {
        const full = top.path ? `${top.path}.${value}` : value;
        if (top.keys.has(value)) found.push(full);
        top.keys.add(value);
        lastKey = full;
      }
    } else if (ch === '{') {
      objects.push({ keys: new Set(), path: objects.length === 0 ? '' : lastKey });
    } else if (ch === '}') {
      objects.pop();
    }
  }
  return found;
}

const pairs = [
  ['apps/console/src/i18n/en.json', 'apps/console/src/i18n/pt.json'],
  ['apps/console/src/i18n/en.screens.json', 'apps/console/src/i18n/pt.screens.json'],
  ['packages/contracts/src/i18n/errors.en.json', 'packages/contracts/src/i18n/errors.pt.json'],
];

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const root = path.resolve(import.meta.dirname, '..');
  // Each block keeps its texts in its own folder (packages/blocks/src/<type>/en.json, pt.json).
  const blocks = path.join(root, 'packages/blocks/src');
  for (const folder of fs.readdirSync(blocks).sort()) {
    if (fs.existsSync(path.join(blocks, folder, 'en.json'))) pairs.push([`packages/blocks/src/${folder}/en.json`, `packages/blocks/src/${folder}/pt.json`]);
  }
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const problems = [
    ...pairs.flat().flatMap((file) => duplicateKeys(read(file!)).map((key) => `${file}: key given twice: ${key}`)),
    ...pairs.flatMap(([en, pt]) =>
      compareCatalogues(JSON.parse(read(en!)) as Tree, JSON.parse(read(pt!)) as Tree).map((problem) => `${path.dirname(en!)}: ${problem}`),
    ),
  ];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log('i18n: en and pt have the same keys');
}
