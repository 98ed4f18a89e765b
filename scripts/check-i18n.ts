/**
 * en.json and pt.json must have the same keys, and no value may be empty. Run by `npm run check`.
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
  const problems = pairs.flatMap(([en, pt]) =>
    compareCatalogues(JSON.parse(fs.readFileSync(path.join(root, en!), 'utf8')) as Tree, JSON.parse(fs.readFileSync(path.join(root, pt!), 'utf8')) as Tree).map(
      (problem) => `${path.dirname(en!)}: ${problem}`,
    ),
  );
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log('i18n: en and pt have the same keys');
}
