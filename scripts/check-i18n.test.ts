import { ESLint } from 'eslint';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { checkRepository, type ConsoleLists, compareCatalogues, duplicateKeys, keysUsed, untranslated, viewTitlesMissing } from './check-i18n.ts';

describe('npm run check guards the translations', () => {
  test('a key missing on either side, or an empty text, is reported', () => {
    expect(compareCatalogues({ a: { b: 'B', c: 'C' } }, { a: { b: 'Bê', c: 'Cê' } })).toEqual([]);
    expect(compareCatalogues({ a: { b: 'B', c: 'C' } }, { a: { b: 'Bê' }, d: ' ' })).toEqual([
      'missing in pt: a.c',
      'missing in en: d',
      'empty text: d',
    ]);
  });

  test('a key given twice in one object is reported: JSON.parse would keep only the last', () => {
    expect(duplicateKeys('{"a": {"b": "x"}, "c": "y, \\"a\\": z", "a": {"d": "z"}}')).toEqual(['a']);
    expect(duplicateKeys('{"v": {"custom": {"k": "1", "k": "2"}}, "w": {"k": "3"}}')).toEqual(['v.custom.k']);
    expect(duplicateKeys('{"a": {"b": "x"}, "c": {"b": "y"}}')).toEqual([]);
  });

  /**
   * The rules a console component breaks, as `npm run check` lints it. (The i18next plugin takes a
   * name in capitals only, `A`, for a constant and reads nothing in it: the examples say `Greeting`.)
   */
  async function rulesBroken(source: string): Promise<(string | null)[]> {
    const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '..') });
    const [result] = await eslint.lintText(source, { filePath: 'apps/console/src/features/example.tsx' });
    return result!.messages.map((message) => message.ruleId);
  }

  test.each([
    ['text written straight into JSX', 'i18next/no-literal-string', '<Text>Hello there</Text>', "<Text>{t('greeting')}</Text>"],
    ['a literal label, title or placeholder', 'no-restricted-syntax', '<ActionIcon aria-label="Close the dialog" />', "<ActionIcon aria-label={t('common.close')} />"],
  ])('%s fails the lint (%s); the same through t() passes', async (_what, rule, literal, translated) => {
    expect(await rulesBroken(`export const Greeting = () => ${literal};\n`)).toContain(rule);
    expect(await rulesBroken(`export const Greeting = ({ t }: { t: (k: string) => string }) => ${translated};\n`)).not.toContain(rule);
  });

  test('the keys code names are found in t() calls, both sides of a choice, *Key properties and template prefixes', () => {
    const source = [
      "t('a.b'); t(\"c.d\", { x: 1 }); t(ok ? 'e.f' : 'g.h');",
      "const column = { labelKey: 'i.j' }; t(`k.l.${kind}`); t('not a key'); t(variable);",
    ].join('\n');
    expect(keysUsed(source)).toEqual({ keys: ['a.b', 'c.d', 'e.f', 'g.h', 'i.j'], prefixes: ['k.l'] });
  });

  test('an edit or rename title without a view title beside it is reported', () => {
    const texts = new Map([
      ['users.editTitle', 'Edit user'],
      ['users.viewTitle', 'View user'],
      ['audios.renameTitle', 'Rename audio'],
      ['audit.detailsTitle', 'Audit entry'],
    ]);
    expect(viewTitlesMissing(texts)).toEqual(['no viewTitle beside audios.renameTitle']);
  });

  test('Portuguese left equal to the English is reported, unless it is a shared word or holds no word', () => {
    const en = { a: 'Save the plan', b: 'Tenant', c: '⇧K', d: 'sip:100@pbx.example.com', e: '{{day}}: {{hours}}' };
    expect(untranslated(en, { ...en })).toEqual(['not translated in pt: a ("Save the plan")']);
    expect(untranslated(en, { ...en, a: 'Salvar o plano' })).toEqual([]);
  });
});

describe('npm run check on a repository with a planted mistake', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });

  // The console's lists of the planted repository: the entity its audit filter offers, a key built from a list.
  const planted: ConsoleLists = { auditEntities: ['plan'], labelKeys: ['page.title'] };

  /** The smallest repository the checker reads, with every text translated; `change` plants a mistake. */
  function repository(files: Record<string, string | object> = {}): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-i18n-'));
    roots.push(root);
    const all: Record<string, string | object> = {
      'apps/console/src/i18n/en.json': { common: { togglePasswordVisibility: 'Show or hide the password' } },
      'apps/console/src/i18n/pt.json': { common: { togglePasswordVisibility: 'Mostrar ou ocultar a senha' } },
      'apps/console/src/i18n/en.screens.json': { page: { title: 'Plans', editTitle: 'Edit plan', viewTitle: 'View plan' }, audit: { entities: { plan: 'Plan' } } },
      'apps/console/src/i18n/pt.screens.json': { page: { title: 'Planos', editTitle: 'Editar plano', viewTitle: 'Ver plano' }, audit: { entities: { plan: 'Plano' } } },
      'packages/contracts/src/i18n/errors.en.json': { not_found: 'Not found.' },
      'packages/contracts/src/i18n/errors.pt.json': { not_found: 'Não encontrado.' },
      'packages/contracts/src/configuration.ts': "export const setting = { descriptionKey: 'page.title' };\n",
      'packages/blocks/src/.keep': '',
      'apps/server/src/plans.ts': "recordAudit(trx, scope, [{ action: 'create', entity: 'plan' }]);\nconst fields = { entity: 'string' };\n",
      'apps/console/src/Page.tsx': "export const Page = ({ t }) => <PasswordInput label={t('page.title')} />;\n",
      'apps/console/src/app/mantine-labels.ts': "export const labels = (t) => ({ PasswordInput: { 'aria-label': t('common.togglePasswordVisibility') } });\n",
      'apps/console/node_modules/@mantine/core/esm/components/PasswordInput/PasswordInput.mjs': '"aria-label": "Toggle password visibility",\n',
      ...files,
    };
    for (const [file, content] of Object.entries(all)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), typeof content === 'string' ? content : JSON.stringify(content));
    }
    return root;
  }

  test('a repository with everything translated passes', () => {
    expect(checkRepository(repository(), planted)).toEqual([]);
  });

  test("the blocks' editor texts are held to the same keys in both languages", () => {
    const root = repository({ 'packages/blocks/src/core/editor/en.json': { add_row: 'Add', none: 'None' }, 'packages/blocks/src/core/editor/pt.json': { add_row: 'Adicionar' } });
    expect(checkRepository(root, planted)).toEqual(['packages/blocks/src/core/editor: missing in pt: none']);
  });

  test('a key the console names that no catalogue has fails, in both languages', () => {
    const root = repository({ 'apps/console/src/Page.tsx': "export const Page = ({ t }) => <Text>{t('page.subtitle')}</Text>;\n" });
    expect(checkRepository(root, planted)).toEqual(['apps/console/src/Page.tsx: no en text for page.subtitle', 'apps/console/src/Page.tsx: no pt text for page.subtitle']);
  });

  test('English left in the Portuguese catalogue fails', () => {
    const root = repository({
      'apps/console/src/i18n/pt.screens.json': { page: { title: 'Plans', editTitle: 'Editar plano', viewTitle: 'Ver plano' }, audit: { entities: { plan: 'Plano' } } },
    });
    expect(checkRepository(root, planted)).toEqual(['apps/console/src/i18n: not translated in pt: page.title ("Plans")']);
  });

  test('an audit entity without a name, and an edit title without its view title, fail', () => {
    const root = repository({
      'apps/server/src/plans.ts': "recordAudit(trx, scope, [{ action: 'create', entity: 'plan' }, { action: 'update', entity: 'plan_version' }]);\n",
      'apps/console/src/i18n/en.screens.json': { page: { title: 'Plans', editTitle: 'Edit plan' }, audit: { entities: { plan: 'Plan' } } },
      'apps/console/src/i18n/pt.screens.json': { page: { title: 'Planos', editTitle: 'Editar plano' }, audit: { entities: { plan: 'Plano' } } },
    });
    expect(checkRepository(root, planted)).toEqual([
      'en: no viewTitle beside page.editTitle',
      'en: no name for the audit entity plan_version (audit.entities.plan_version)',
      'pt: no viewTitle beside page.editTitle',
      'pt: no name for the audit entity plan_version (audit.entities.plan_version)',
      'the server audits plan_version: add it to apps/console/src/features/audit/entities.ts so the audit filter offers it',
    ]);
  });

  test('an audit entity or a key the console lists without a text fails', () => {
    const root = repository();
    expect(checkRepository(root, { auditEntities: ['plan', 'report'], labelKeys: ['page.title', 'settings.categories.audio'] })).toEqual([
      'en: no name for the audit entity report (audit.entities.report)',
      'en: no text for settings.categories.audio',
      'pt: no name for the audit entity report (audit.entities.report)',
      'pt: no text for settings.categories.audio',
    ]);
  });

  test("a Mantine component with an English label of its own, used without a translated one, fails", () => {
    const root = repository({ 'apps/console/src/app/mantine-labels.ts': 'export const labels = () => ({});\n' });
    expect(checkRepository(root, planted)).toEqual([
      "Mantine's PasswordInput carries an English label: give it a translated one in apps/console/src/app/mantine-labels.ts",
    ]);
  });
});

