/**
 * The translations `npm run check` guards: en and pt catalogues have the same keys, no value is
 * empty and no object names a key twice; every key the console and the blocks name in code exists
 * in both; Portuguese text is not the English text left in place; each edit dialog has its "View …"
 * title for guests; every audit entity has its name; and each Mantine component that carries an
 * English label of its own gets a translated one (app/mantine-labels.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { auditEntities as namedAuditEntities } from '../apps/console/src/features/audit/entities.ts';
import { categoryOptions, typeOptions } from '../apps/console/src/features/settings/labels.ts';
import { dialogTitleKeys, readOnlyModes, viewTitleKey } from '../apps/console/src/lib/dialog-titles.ts';

type Tree = { [key: string]: string | Tree };

export function flatten(tree: Tree, prefix = ''): Map<string, string> {
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

/** Keys named in source: `t('a.b')`, both sides of `t(x ? 'a' : 'b')`, and `labelKey: 'a.b'`-like properties. */
export function keysUsed(source: string): { keys: string[]; prefixes: string[] } {
  const keys = new Set<string>();
  const prefixes = new Set<string>();
  const key = String.raw`['"]([a-zA-Z0-9_]+(?:\.[a-zA-Z0-9_]+)+)['"]`;
  for (const pattern of [
    new RegExp(String.raw`\bt\(\s*` + key, 'g'),
    new RegExp(String.raw`\bt\([^()?,]*\?\s*` + key + String.raw`\s*:\s*` + key, 'g'),
    new RegExp(String.raw`\b[a-zA-Z]*Key\s*[:=]\s*` + key, 'g'),
  ]) {
    for (const match of source.matchAll(pattern)) for (const found of match.slice(1)) if (found) keys.add(found);
  }
  // t(`audit.actions.${action}`): the catalogue must hold an object under the fixed part.
  for (const match of source.matchAll(/\bt\(\s*`([a-zA-Z0-9_.]+)\.\$\{/g)) prefixes.add(match[1]!);
  return { keys: [...keys].sort(), prefixes: [...prefixes].sort() };
}

/** A key exists as a text (or as i18next plural forms of one); a prefix as an object of texts. */
export function missingKeys(used: { keys: string[]; prefixes: string[] }, texts: Map<string, string>): string[] {
  const known = (key: string) => texts.has(key) || texts.has(`${key}_one`) || texts.has(`${key}_other`);
  return [
    ...used.keys.filter((key) => !known(key)),
    ...used.prefixes.filter((prefix) => ![...texts.keys()].some((key) => key.startsWith(`${prefix}.`))).map((prefix) => `${prefix}.*`),
  ];
}

/**
 * Words and names that read the same in Portuguese. Anything else left equal to the English is an
 * untranslated text, unless it has no word in it ("⇧K", "24/7", "{{day}}: {{hours}}") or is an
 * example address ("sip:100@pbx.example.com").
 */
export const sameInBothLanguages = new Set([
  'Voxplan',
  'Voxplan © {{year}}',
  'English',
  'Português',
  'Tenant',
  'Tenants',
  'E-mail',
  'URI',
  'URL',
  'Chat',
  'Chatbot',
  'Marketing',
  'Account SID',
  'FX (Lua)',
  'Webhook',
  'SMS',
  'WhatsApp',
  'Twilio',
  'Asterisk',
  'OpenAI',
  'SipPulse AI',
  'WAV',
  'Menu',
  'Marketing',
  '{{count}} min',
]);

export function untranslated(en: Tree, pt: Tree): string[] {
  const portuguese = flatten(pt);
  const problems: string[] = [];
  for (const [key, text] of flatten(en)) {
    if (portuguese.get(key) !== text || sameInBothLanguages.has(text)) continue;
    const words = text.replace(/\{\{[^}]*\}\}/g, '');
    if (!/\p{L}{3,}/u.test(words) || /^\S*(:\/\/|@|:)\S*$/.test(words)) continue;
    problems.push(`not translated in pt: ${key} (${JSON.stringify(text)})`);
  }
  return problems;
}

/** A guest opens the edit (and rename) dialogs read-only, titled by the `viewTitle` beside their title (useDialogTitle). */
export function viewTitlesMissing(texts: Map<string, string>): string[] {
  const changeTitles = new Set<string>(readOnlyModes.map((mode) => dialogTitleKeys[mode]));
  return [...texts.keys()]
    .filter((key) => changeTitles.has(key.split('.').pop()!) && !texts.has(key.replace(/[a-zA-Z]+$/, viewTitleKey)))
    .map((key) => `no ${viewTitleKey} beside ${key}`);
}

/** The entities the server writes to the audit log (`entity: 'tenant'`), which the audit screen names. */
export function auditEntities(source: string): string[] {
  const fieldTypes = new Set(['string', 'integer', 'number', 'date', 'boolean']);
  return [...source.matchAll(/\bentity: '([a-z_]+)'/g)].map((match) => match[1]!).filter((entity) => !fieldTypes.has(entity));
}

/** Mantine components whose code carries an English aria-label of its own ("Toggle password visibility"). */
export function englishLabelledComponents(files: { path: string; text: string }[]): string[] {
  const found = new Set<string>();
  for (const file of files) {
    const component = /components\/([A-Za-z]+)\//.exec(file.path)?.[1];
    if (component && /"aria-label": "[A-Z][a-z]/.test(file.text)) found.add(component);
  }
  return [...found].sort();
}

function filesUnder(dir: string, extensions: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => extensions.test(file) && !file.includes('node_modules')).map((file) => path.join(dir, file));
}

/** Everything `npm run check` finds wrong with the translations of the repository at `root`. */
/** What the console lists in code and shows by catalogue key: the audit entities its filter offers, and other keys built from a list. */
export interface ConsoleLists {
  auditEntities: readonly string[];
  labelKeys: readonly string[];
}
const consoleLists: ConsoleLists = {
  auditEntities: namedAuditEntities,
  labelKeys: [...categoryOptions, ...typeOptions].map((option) => option.labelKey),
};

export function checkRepository(root: string, lists: ConsoleLists = consoleLists): string[] {
  const pairs = [
    ['apps/console/src/i18n/en.json', 'apps/console/src/i18n/pt.json'],
    ['apps/console/src/i18n/en.screens.json', 'apps/console/src/i18n/pt.screens.json'],
    ['packages/contracts/src/i18n/errors.en.json', 'packages/contracts/src/i18n/errors.pt.json'],
  ];
  // Texts of screens that load their own part of the catalogue (i18n/index.ts: a staged rollout's).
  const parts = ['rollouts'].filter((part) => fs.existsSync(path.join(root, `apps/console/src/i18n/en.${part}.json`)));
  for (const part of parts) pairs.push([`apps/console/src/i18n/en.${part}.json`, `apps/console/src/i18n/pt.${part}.json`]);
  // Each block keeps its texts in its own folder (packages/blocks/src/<type>/en.json, pt.json).
  const blocks = path.join(root, 'packages/blocks/src');
  for (const folder of fs.readdirSync(blocks).sort()) {
    if (fs.existsSync(path.join(blocks, folder, 'en.json'))) pairs.push([`packages/blocks/src/${folder}/en.json`, `packages/blocks/src/${folder}/pt.json`]);
  }
  // The generic texts of the blocks' editor forms (buttons, placeholders, issue texts).
  if (fs.existsSync(path.join(blocks, 'core/editor/en.json'))) pairs.push(['packages/blocks/src/core/editor/en.json', 'packages/blocks/src/core/editor/pt.json']);
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const parse = (file: string) => JSON.parse(read(file)) as Tree;
  // As the console loads them: the screens' texts merged deep into the core ones (i18n/index.ts).
  const consoleTexts = (language: 'en' | 'pt') =>
    new Map([
      ...flatten(parse(`apps/console/src/i18n/${language}.json`)),
      ...flatten(parse(`apps/console/src/i18n/${language}.screens.json`)),
      ...parts.flatMap((part) => [...flatten(parse(`apps/console/src/i18n/${language}.${part}.json`))]),
      ...flatten({ errors: parse(`packages/contracts/src/i18n/errors.${language}.json`) }),
    ]);
  const sources = [
    ...filesUnder(path.join(root, 'apps/console/src'), /\.tsx?$/),
    ...filesUnder(blocks, /\.tsx?$/),
    path.join(root, 'packages/contracts/src/configuration.ts'),
  ].filter((file) => !file.endsWith('.test.ts'));
  const serverSource = filesUnder(path.join(root, 'apps/server/src'), /\.ts$/).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  const mantineFiles = filesUnder(path.join(root, 'apps/console/node_modules/@mantine'), /\.mjs$/).filter((file) => file.includes(`${path.sep}esm${path.sep}`));
  const consoleSource = filesUnder(path.join(root, 'apps/console/src'), /\.tsx$/).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  const labelled = read('apps/console/src/app/mantine-labels.ts');
  return [
    ...pairs.flat().flatMap((file) => duplicateKeys(read(file!)).map((key) => `${file}: key given twice: ${key}`)),
    ...pairs.flatMap(([en, pt]) =>
      [...compareCatalogues(parse(en!), parse(pt!)), ...untranslated(parse(en!), parse(pt!))].map((problem) => `${path.dirname(en!)}: ${problem}`),
    ),
    ...(['en', 'pt'] as const).flatMap((language) => {
      const texts = consoleTexts(language);
      return [
        ...sources.flatMap((file) =>
          missingKeys(keysUsed(fs.readFileSync(file, 'utf8')), texts).map((key) => `${path.relative(root, file)}: no ${language} text for ${key}`),
        ),
        ...viewTitlesMissing(texts).map((problem) => `${language}: ${problem}`),
        ...[...new Set([...auditEntities(serverSource), ...lists.auditEntities])]
          .filter((entity) => !texts.has(`audit.entities.${entity}`))
          .map((entity) => `${language}: no name for the audit entity ${entity} (audit.entities.${entity})`),
        ...lists.labelKeys.filter((key) => !texts.has(key)).map((key) => `${language}: no text for ${key}`),
      ];
    }),
    ...[...new Set(auditEntities(serverSource))]
      .filter((entity) => !lists.auditEntities.includes(entity))
      .map((entity) => `the server audits ${entity}: add it to apps/console/src/features/audit/entities.ts so the audit filter offers it`),
    ...englishLabelledComponents(mantineFiles.map((file) => ({ path: file, text: fs.readFileSync(file, 'utf8') })))
      .filter((component) => new RegExp(`<${component}[\\s>]`).test(consoleSource) && !new RegExp(`\\b${component}:`).test(labelled))
      .map((component) => `Mantine's ${component} carries an English label: give it a translated one in apps/console/src/app/mantine-labels.ts`),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const problems = checkRepository(path.resolve(import.meta.dirname, '..'));
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log('i18n: en and pt have the same keys, and every text the console names is translated');
}
