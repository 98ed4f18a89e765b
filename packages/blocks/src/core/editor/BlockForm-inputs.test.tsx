// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { editorTexts, formatText } from './texts.ts';
import type { EditorLanguage } from './types.ts';
import { makeServices, dataOf, renderForm, input, choose } from './block-form-testing.tsx';

/** BlockForm's inputs and a WhatsApp template; every block's form and the lists of rows: BlockForm.test.tsx. */
afterEach(cleanup);

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
        { key: 'body.2', type: 'text', example: 'BRL 12.50' },
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
    expect(screen.getByLabelText('Header 1 · image (link)', { selector: 'input' })).toBe(input('parameters.0.value'));
    expect(screen.getByLabelText('Body 2 · text', { selector: 'input' })).toBe(input('parameters.2.value'));
    expect(input('parameters.0.value').placeholder).toBe('e.g. https://example.com/box.png');
    // A body's text placeholder may be sent as a currency instead; a header's media has no such choice.
    expect(screen.queryByTestId('field-parameters.0.type')).toBeNull();
    await choose('parameters.2.type', 'currency');
    expect((last()!.parameters as unknown[])[2]).toEqual({ key: 'body.2', value: '', type: 'currency' });

    expect(screen.getAllByText(editorTexts.en.whatsapp_template.unmapped)).toHaveLength(3);
    fireEvent.change(input('parameters.1.value'), { target: { value: '{{name}}' } });
    expect(last()!.parameters).toEqual([
      { key: 'header.1', value: '' },
      { key: 'body.1', value: '{{name}}' },
      { key: 'body.2', value: '', type: 'currency' },
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
