// @vitest-environment happy-dom
import { planLanguageOf } from '@voxplan/contracts/voices';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { blockEditors } from '../../editor-registry.ts';
import { formFieldsOf } from './form-model.ts';
import { editorTexts, fieldLabel, optionLabel } from './texts.ts';
import type { EditorLanguage } from './types.ts';
import { records, makeServices, dataOf, renderForm, input, choose, isScalar } from './block-form-testing.tsx';

afterEach(cleanup);

describe.each(blockEditors.map((editor) => [editor.type, editor] as const))('%s', (type, editor) => {
  // A WhatsApp template's picker fills several fields at once: its own tests are below.
  const fields = formFieldsOf(editor).filter((field) => field.kind !== 'whatsapp_template');

  test.each(['en', 'pt'] as const)('labels every field in %s and shows the data', (language: EditorLanguage) => {
    renderForm(type, { services: makeServices({ language }) });
    const texts = editor.description.texts[language];
    const data = dataOf(type);
    for (const field of fields) {
      const label = fieldLabel(texts, field.key, false);
      if (!isScalar(field)) {
        expect(screen.getByRole('group', { name: label })).toBe(input(field.key));
        continue;
      }
      const element = screen.getByLabelText(label, { selector: 'input, textarea' }) as HTMLInputElement;
      expect(element).toBe(input(field.key));
      const value = data[field.key];
      if (field.kind === 'switch') expect(element.checked).toBe(value);
      else if (field.kind === 'select') expect(element.value).toBe(optionLabel(texts, String(value)));
      else if (field.kind === 'reference') expect(element.value).toBe(value === null ? editorTexts[language].none : records[field.reference].find((record) => record.value === value)!.label);
      else if (field.kind === 'language') expect(element.value).toBe(value === '' ? editorTexts[language].plan_language : `${planLanguageOf(String(value))!.name} · ${String(value)}`);
      else expect(element.value).toBe(String(value));
    }
    if (formFieldsOf(editor).length === 0) expect(screen.getByText(editorTexts[language].no_fields)).toBeTruthy();
  });

  test('changes the data as the user edits each field', async () => {
    for (const field of fields.filter(isScalar)) {
      const { last } = renderForm(type);
      const before = dataOf(type);
      let expected: unknown;
      switch (field.kind) {
        case 'switch':
          fireEvent.click(input(field.key));
          expected = !before[field.key];
          break;
        case 'number':
          fireEvent.change(input(field.key), { target: { value: '9' } });
          expected = 9;
          break;
        case 'select': {
          const other = field.options.find((option) => option !== before[field.key])!;
          await choose(field.key, optionLabel(editor.description.texts.en, other));
          expected = other;
          break;
        }
        case 'reference':
          await choose(field.key, records[field.reference][1]!.label);
          expected = records[field.reference][1]!.value;
          break;
        case 'language':
          // The voices list's languages, by their own names.
          await choose(field.key, 'Português (Brasil) · pt-BR');
          expected = 'pt-BR';
          break;
        default:
          fireEvent.change(input(field.key), { target: { value: '{"typed": 1}' } });
          expected = '{"typed": 1}';
      }
      // The other fields are passed on as they were.
      expect(last(), field.key).toEqual({ ...before, [field.key]: expected });
      cleanup();
    }
  });

  test('is read-only for a guest: every input, no list buttons', () => {
    renderForm(type, { services: makeServices({ readOnly: true }) });
    for (const element of document.querySelectorAll<HTMLInputElement>('input, textarea')) {
      if (element.type === 'hidden') continue;
      expect(element.readOnly || element.disabled, element.getAttribute('data-testid') ?? element.name).toBe(true);
    }
    expect(document.querySelectorAll('[data-testid^="add-"], [data-testid^="remove-"], [data-testid^="up-"]')).toHaveLength(0);
  });

  test('shows an issue under its field', () => {
    const field = fields[0];
    if (!field) return;
    const message = 'This one is wrong';
    renderForm(type, { issues: new Map([[field.key, message]]) });
    const shown = screen.getByText(message);
    if (isScalar(field)) {
      expect(input(field.key).getAttribute('aria-invalid')).toBe('true');
      // Read with the field by a screen reader.
      expect(input(field.key).getAttribute('aria-describedby')?.split(' ')).toContain(shown.id);
    } else expect(input(field.key).contains(shown)).toBe(true);
  });
});

describe('lists of rows', () => {
  test('adds, changes, reorders and removes rows, with the issues of a row under it', async () => {
    const { last } = renderForm('voice_menu', { issues: new Map([['options.1.digits', 'Used twice']]) });
    fireEvent.click(screen.getByTestId('add-options'));
    // The new option comes with the next free key.
    expect(last()!.options).toEqual([
      { digits: '1', label: '' },
      { digits: '2', label: '' },
    ]);
    fireEvent.change(input('options.1.label'), { target: { value: 'Sales' } });
    expect(within(screen.getByTestId('row-options.1')).getByText('Used twice')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Move row 2 up' }));
    expect(last()!.options).toEqual([
      { digits: '2', label: 'Sales' },
      { digits: '1', label: '' },
    ]);
    expect(input('options.0.label').value).toBe('Sales');
    fireEvent.click(screen.getByTestId('remove-options.1'));
    expect(last()!.options).toEqual([{ digits: '2', label: 'Sales' }]);
    // A menu needs one option: the last one cannot be removed.
    expect((screen.getByTestId('remove-options.0') as HTMLButtonElement).disabled).toBe(true);
  });

  test('a list of single values (fx returns) adds and edits texts', () => {
    const { last } = renderForm('fx');
    fireEvent.click(screen.getByTestId('add-returns'));
    fireEvent.change(input('returns.1'), { target: { value: 'vip' } });
    expect(last()!.returns).toEqual(['next', 'vip']);
    expect(screen.getByLabelText('Return values 2', { selector: 'input' })).toBe(input('returns.1'));
  });

  test('rows of several kinds (analyses): each kind offered once, a kind changed starts over with its fields', async () => {
    const { last } = renderForm('recording');
    expect(screen.queryByTestId('add-analyses-summary')).toBeNull();
    fireEvent.click(screen.getByTestId('add-analyses-topics'));
    expect(last()!.analyses).toEqual([{ kind: 'summary', max_length: 200 }, { kind: 'topics', items: [''] }]);
    fireEvent.change(input('analyses.1.items.0'), { target: { value: 'billing' } });
    expect(last()!.analyses).toEqual([{ kind: 'summary', max_length: 200 }, { kind: 'topics', items: ['billing'] }]);
    await choose('analyses.1.kind', 'Keywords');
    expect(last()!.analyses).toEqual([{ kind: 'summary', max_length: 200 }, { kind: 'keywords', items: [''] }]);
  });

  test('name/value pairs (headers) are kept as an object, a row without a name included while typed', () => {
    const { last } = renderForm('http_request');
    expect(input('headers.0.name').value).toBe('X-Tenant');
    fireEvent.click(screen.getByTestId('add-headers'));
    fireEvent.change(input('headers.1.name'), { target: { value: 'Authorization' } });
    fireEvent.change(input('headers.1.value'), { target: { value: 'Bearer {{token}}' } });
    expect(last()!.headers).toEqual({ 'X-Tenant': '{{tenant_id}}', Authorization: 'Bearer {{token}}' });
    fireEvent.click(screen.getByTestId('remove-headers.0'));
    expect(last()!.headers).toEqual({ Authorization: 'Bearer {{token}}' });
  });

  test("a header's issue (zod's path is its name) shows in its row", () => {
    renderForm('http_request', { data: { ...dataOf('http_request'), headers: { 'X-Tenant': '1', 'bad name': 'x' } }, issues: new Map([['headers.bad name', 'Invalid key in record']]) });
    expect(within(screen.getByRole('group', { name: 'Row 2' })).getByText('Invalid key in record')).toBeTruthy();
  });
});
