// @vitest-environment happy-dom
import { MantineProvider } from '@mantine/core';
import { planLanguageOf } from '@voxplan/contracts/voices';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { blockEditor, blockEditors } from '../../editor-registry.ts';
import type { ReferenceKind } from '../define.ts';
import { BlockForm } from './BlockForm.tsx';
import { type FieldDescriptor, formFieldsOf, newBlockData } from './form-model.ts';
import { editorTexts, fieldLabel, formatText, optionLabel } from './texts.ts';
import type { EditorLanguage, EditorServices } from './types.ts';

// Mantine's text areas listen for web fonts loading, which happy-dom does not have.
if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { value: new EventTarget() });

afterEach(cleanup);

const records: Record<ReferenceKind, Array<{ value: number; label: string }>> = {
  destination: [
    { value: 7, label: 'Reception' },
    { value: 8, label: 'Sales queue' },
  ],
  audio: [
    { value: 7, label: 'Welcome' },
    { value: 8, label: 'Goodbye' },
  ],
  date_range: [
    { value: 7, label: 'Office hours' },
    { value: 8, label: 'Weekends' },
  ],
  plan: [
    { value: 7, label: 'Support' },
    { value: 8, label: 'Billing' },
  ],
};

function makeServices(overrides: Partial<EditorServices> = {}): EditorServices {
  return {
    language: 'en',
    readOnly: false,
    useReferenceOptions: (kind) => ({ options: records[kind], loading: false }),
    playAudio: vi.fn(),
    variableNames: ['caller', 'called', 'channel', 'protocol', 'total'],
    isSettingOn: () => true,
    ...overrides,
  };
}

/** What completes each block's new data (tables of form-model.test.ts: the rest is the defaults). */
const fill: Record<string, Record<string, unknown>> = {
  destination: { destination_id: 7 },
  date_range: { date_range_id: 7 },
  play_message: { voice_text: 'Welcome to {{called}}' },
  api_switch: { url: 'https://api.example.com/{{caller}}', attribute: 'status', cases: [{ value: 'ok', exit: 'paid' }] },
  send_dtmf: { digits: '12w#' },
  speech_detection: { variables: [{ name: 'city', description: 'the city named' }] },
  http_request: { url: 'https://api.example.com', headers: { 'X-Tenant': '{{tenant_id}}' }, body: '{"caller": "{{caller}}"}' },
  call_plan: { plan_id: 7 },
  variable: { assignments: [{ name: 'total', value: '=1 + 1' }] },
  recording: { analyses: [{ kind: 'summary', max_length: 200 }] },
};

const dataOf = (type: string): Record<string, unknown> => ({ ...newBlockData(blockEditor(type)!), ...fill[type] });

/** Renders the form of a block around state, as the side panel does, and records every change. */
function renderForm(type: string, options: { data?: Record<string, unknown>; issues?: Map<string, string>; services?: EditorServices } = {}) {
  const changes: Array<Record<string, unknown>> = [];
  const services = options.services ?? makeServices();
  function Harness() {
    const [data, setData] = useState(options.data ?? dataOf(type));
    return (
      <BlockForm
        type={type}
        data={data}
        onChange={(next) => {
          changes.push(next);
          setData(next);
        }}
        issues={options.issues ?? new Map()}
        services={services}
      />
    );
  }
  render(
    <MantineProvider>
      <Harness />
    </MantineProvider>,
  );
  return { changes, last: () => changes.at(-1), services };
}

const input = (path: string) => screen.getByTestId(`field-${path}`) as HTMLInputElement;

async function choose(path: string, optionText: string) {
  fireEvent.click(input(path));
  fireEvent.click(await screen.findByRole('option', { name: optionText }));
}

const isScalar = (field: FieldDescriptor) => !['list', 'variants', 'record'].includes(field.kind);

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

describe('inputs', () => {
  test('a template offers the variables after {{ and writes the chosen one', async () => {
    const { last } = renderForm('play_message');
    const field = input('voice_text');
    field.focus();
    fireEvent.change(field, { target: { value: 'Hello {{ca', selectionStart: 10, selectionEnd: 10 } });
    // happy-dom lays nothing out, so the floating dropdown counts as detached and hidden: the
    // options are looked for whatever their visibility, the field says the list is open.
    const option = (name: string) => screen.queryByRole('option', { name, hidden: true });
    expect(field.getAttribute('data-expanded')).toBe('true');
    expect(option('{{caller}}')).toBeTruthy();
    expect(option('{{total}}')).toBeNull();
    fireEvent.click(option('{{called}}')!);
    expect(last()!.voice_text).toBe('Hello {{called}}');
  });

  test.each(['en', 'pt'] as const)("a condition's value lists the system's variables with what they hold, answered_by among them, before the plan's (%s)", (language) => {
    renderForm('condition', { services: makeServices({ language, variableNames: ['caller', 'answered_by', 'amount'] }) });
    const field = input('rules.0.left');
    field.focus();
    fireEvent.change(field, { target: { value: '{{', selectionStart: 2, selectionEnd: 2 } });
    const texts = editorTexts[language];
    const system = screen.getByRole('group', { name: texts.variable_groups.system, hidden: true });
    const answeredBy = within(system).getByRole('option', { name: '{{answered_by}}', hidden: true });
    expect(answeredBy.textContent).toContain(texts.variables.answered_by);
    expect(texts.variables.answered_by).toMatch(/human.*machine.*unknown/);
    const own = screen.getByRole('group', { name: texts.variable_groups.plan, hidden: true });
    expect(within(own).getByRole('option', { name: '{{amount}}', hidden: true })).toBeTruthy();
    expect(within(system).queryByRole('option', { name: '{{amount}}', hidden: true })).toBeNull();
  });

  test('Enter takes the first variable offered, and a name half written after the caret is replaced', () => {
    const { last } = renderForm('send_message');
    const field = input('to');
    field.focus();
    fireEvent.change(field, { target: { value: '{{to}} and {{tally}}', selectionStart: 4, selectionEnd: 4 } });
    fireEvent.keyDown(field, { key: 'Enter', code: 'Enter' });
    expect(last()!.to).toBe('{{total}} and {{tally}}');
  });

  test('a value says it takes text or an expression, and shows an expression in monospace', () => {
    renderForm('condition');
    expect(input('rules.0.left').placeholder).toBe(editorTexts.en.value_hint);
    expect(input('rules.0.left').getAttribute('style') ?? '').not.toContain('monospace');
    fireEvent.change(input('rules.0.left'), { target: { value: '=count + 1' } });
    expect(input('rules.0.left').getAttribute('style')).toContain('monospace');
  });

  test('a JSON body says it is not JSON as the user types', () => {
    renderForm('http_request');
    fireEvent.change(input('body'), { target: { value: '{"caller": ' } });
    expect(screen.getByText(/^Invalid JSON: /)).toBeTruthy();
    fireEvent.change(input('body'), { target: { value: '{"caller": "{{caller}}"}' } });
    expect(screen.queryByText(/^Invalid JSON: /)).toBeNull();
  });

  test('the audio picker lists the audios, offers none, and plays the chosen one', async () => {
    const { last, services } = renderForm('play_message', { data: { ...dataOf('play_message'), text_to_speech: false, audio_id: 8 } });
    expect(input('audio_id').value).toBe('Goodbye');
    fireEvent.click(screen.getByRole('button', { name: 'Play the audio' }));
    expect(services.playAudio).toHaveBeenCalledWith(8);
    await choose('audio_id', 'None');
    expect(last()!.audio_id).toBeNull();
    expect((screen.getByRole('button', { name: 'Play the audio' }) as HTMLButtonElement).disabled).toBe(true);
  });

  test('a record the tenant no longer has still shows, by its id', () => {
    renderForm('destination', { data: { destination_id: 99, timeout_s: 30 } });
    expect(input('destination_id').value).toBe('#99');
  });

  test('a number emptied is null, for the schema to call it required', () => {
    const { last } = renderForm('destination');
    fireEvent.change(input('timeout_s'), { target: { value: '' } });
    expect(last()!.timeout_s).toBeNull();
  });

  test('an issue about the data as a whole is shown above the fields', () => {
    renderForm('voice_chat_switch', { issues: new Map([['', 'Unrecognized key: "mode"']]) });
    expect(screen.getByRole('alert').textContent).toBe('Unrecognized key: "mode"');
  });

  describe('a choice whose system setting is off', () => {
    const offeredProviders = () => {
      fireEvent.click(input('provider'));
      // The provider's own list: the block's language picker has options of its own.
      const list = document.getElementById(input('provider').getAttribute('aria-controls')!)!;
      return within(list).getAllByRole('option', { hidden: true }).map((option) => option.textContent);
    };
    const secondProviderOff = (language: EditorLanguage = 'en') => makeServices({ language, isSettingOn: (setting) => setting !== 'feature_second_ai_provider' });

    test('the chatbot offers the second AI provider only while feature_second_ai_provider is on', () => {
      renderForm('chatbot', { services: secondProviderOff() });
      expect(offeredProviders()).toEqual(['OpenAI']);
      expect(screen.queryByTestId('warning-provider')).toBeNull();
      cleanup();
      renderForm('chatbot');
      expect(offeredProviders()).toEqual(['OpenAI', 'SipPulse AI']);
    });

    test('a chatbot that already names it keeps it, with a warning that it will fail, in the user\'s language', async () => {
      const { last } = renderForm('chatbot', {
        data: { ...dataOf('chatbot'), provider: 'sippulse' },
        // The server's lint about the same thing is not shown a second time, as an error.
        issues: new Map([['provider', "'sippulse' works only while the system setting feature_second_ai_provider is on"]]),
        services: secondProviderOff(),
      });
      expect(input('provider').value).toBe('SipPulse AI');
      expect(screen.getByTestId('warning-provider').textContent).toBe(formatText(editorTexts.en.setting_off, { option: 'SipPulse AI' }));
      expect(screen.queryByText(/works only while/)).toBeNull();
      await choose('provider', 'OpenAI');
      expect(last()!.provider).toBe('openai');
      expect(screen.queryByTestId('warning-provider')).toBeNull();
      cleanup();
      renderForm('chatbot', { data: { ...dataOf('chatbot'), provider: 'sippulse' }, services: secondProviderOff('pt') });
      expect(screen.getByTestId('warning-provider').textContent).toContain('A opção SipPulse AI está desligada');
    });
  });

  test('the generic texts are in Portuguese for a Portuguese user', async () => {
    renderForm('voice_menu', { services: makeServices({ language: 'pt' }) });
    expect(screen.getByRole('button', { name: 'Adicionar' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Remover a linha 1' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Opções' })).toBeTruthy();
    await act(async () => {});
  });
});

describe('a WhatsApp template', () => {
  const templates = [
    {
      name: 'order_ready',
      language: 'pt_BR',
      status: 'approved',
      parameters: [
        { key: 'header.1', type: 'image', example: 'https://example.com/box.png' },
        { key: 'body.1', type: 'text', example: 'Ana' },
        { key: 'body.2', type: 'currency', example: 'R$ 12,50' },
      ],
      quickReplies: ['Pick up', 'Deliver'],
    },
    { name: 'promo', language: 'en_US', status: 'paused', parameters: [], quickReplies: [] },
  ];
  const withTemplates = (language: EditorLanguage = 'en') => makeServices({ language, useWhatsAppTemplates: () => ({ templates, loading: false }) });

  test('chosen, it fills the language, a row per parameter (typed, with Meta\'s example) and the quick replies; a row left empty says so', async () => {
    const { last } = renderForm('whatsapp_template', { services: withTemplates() });
    await choose('template_name', 'order_ready (pt_BR)');
    expect(last()).toEqual({
      template_name: 'order_ready',
      language: 'pt_BR',
      parameters: [
        { key: 'header.1', value: '' },
        { key: 'body.1', value: '' },
        { key: 'body.2', value: '' },
      ],
      buttons: ['Pick up', 'Deliver'],
    });
    expect(screen.getByLabelText('Body 2 · currency', { selector: 'input' })).toBe(input('parameters.2.value'));
    expect(input('parameters.0.value').placeholder).toBe('e.g. https://example.com/box.png');
    expect(screen.getAllByText(editorTexts.en.whatsapp_template.unmapped)).toHaveLength(3);
    fireEvent.change(input('parameters.1.value'), { target: { value: '{{name}}' } });
    expect(last()!.parameters).toEqual([
      { key: 'header.1', value: '' },
      { key: 'body.1', value: '{{name}}' },
      { key: 'body.2', value: '' },
    ]);
    expect(screen.getAllByText(editorTexts.en.whatsapp_template.unmapped)).toHaveLength(2);
  });

  test('one that is not approved, or not synced any more, is said so, in pt too', () => {
    renderForm('whatsapp_template', { services: withTemplates('pt'), data: { template_name: 'promo', language: 'en_US', parameters: [], buttons: [] } });
    expect(screen.getByTestId('template-state-template_name').textContent).toBe(formatText(editorTexts.pt.whatsapp_template.not_approved, { status: 'pausado' }));
    cleanup();
    renderForm('whatsapp_template', { services: withTemplates(), data: { template_name: 'gone', language: 'en_US', parameters: [{ key: 'body.1', value: 'x' }], buttons: [] } });
    expect(screen.getByTestId('template-state-template_name').textContent).toBe(editorTexts.en.whatsapp_template.not_synced);
    expect(input('parameters.0.value').value).toBe('x');
  });

  test("a send_message's fallback shows on WhatsApp only, and may be none", async () => {
    renderForm('send_message', { services: withTemplates() });
    expect(screen.queryByTestId('field-fallback_template_name')).toBeNull();
    cleanup();
    const { last } = renderForm('send_message', { services: withTemplates(), data: { ...dataOf('send_message'), channel: 'whatsapp' } });
    expect(input('fallback_template_name').value).toBe(editorTexts.en.none);
    await choose('fallback_template_name', 'order_ready (pt_BR)');
    expect(last()).toMatchObject({ fallback_template_name: 'order_ready', fallback_language: 'pt_BR', fallback_parameters: [{ key: 'header.1' }, { key: 'body.1' }, { key: 'body.2' }] });
    expect(last()).not.toHaveProperty('buttons');
  });
});
