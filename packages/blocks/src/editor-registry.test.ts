import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ReferenceKind } from './core/define.ts';
import type { EditorLanguage, SummaryContext } from './core/editor/types.ts';
import { blockDescription, blockEditor, blockEditors } from './editor-registry.ts';
import { blockDefinition, blockTypes } from './registry.ts';

test('every block type has its editor part, in its folder, in the registry order', () => {
  expect(blockEditors.map((editor) => editor.type)).toEqual([...blockTypes]);
  for (const type of blockTypes) {
    expect(fs.existsSync(path.join(import.meta.dirname, type, 'editor.ts')), type).toBe(true);
    expect(blockEditor(type)?.description.type).toBe(type);
  }
  expect(blockEditor('teleport')).toBeUndefined();
});

test('each block has an icon and a Mantine colour', () => {
  const colours = ['dark', 'gray', 'red', 'pink', 'grape', 'violet', 'indigo', 'blue', 'cyan', 'teal', 'green', 'lime', 'yellow', 'orange'];
  for (const editor of blockEditors) {
    expect(editor.icon, editor.type).toBeTruthy();
    expect(colours, editor.type).toContain(editor.color);
  }
});

test("the canvas's description of a block is the one its definition holds, without the schema", () => {
  for (const type of blockTypes) {
    const description = blockDescription(type)!;
    const { schema, ...facts } = blockDefinition(type)!;
    expect(schema, type).toBeDefined();
    // The same values, not copies: each fact of a block is written once, in its description.ts.
    for (const [key, value] of Object.entries(facts)) expect(description[key as keyof typeof description], `${type} ${key}`).toBe(value);
    expect(Object.keys(description).sort()).toEqual(Object.keys(facts).sort());
  }
  expect(blockDescription('teleport')).toBeUndefined();
});

const names: Partial<Record<ReferenceKind, Record<number, string>>> = {
  destination: { 7: 'Reception' },
  audio: { 7: 'Welcome' },
  date_range: { 7: 'Office hours' },
  plan: { 7: 'Support' },
};

const context = (language: EditorLanguage): SummaryContext => ({
  language,
  referenceName: (kind, id) => (id === null || id === undefined ? undefined : names[kind]?.[id]),
});

const prompt = { text_to_speech: true, voice_text: 'Welcome to Voxplan. For sales press 1, for support press 2, or stay on the line.', audio_id: null, chat_text: '' };

/** Data of every block and its summary, in English and in Portuguese. */
const summaries: Array<[type: string, data: unknown, en: string, pt: string]> = [
  ['start', { generate_protocol: true, hangup_chat_message: '', ignore_call: false }, 'Generate protocol', 'Gerar protocolo'],
  ['destination', { destination_id: 7, timeout_s: 30 }, 'Reception\n30 s', 'Reception\n30 s'],
  ['date_range', { date_range_id: 7 }, 'Office hours', 'Office hours'],
  ['play_message', prompt, 'Welcome to Voxplan. For sales press 1, for support press 2,…', 'Welcome to Voxplan. For sales press 1, for support press 2,…'],
  ['play_message', { ...prompt, text_to_speech: false, audio_id: 7 }, 'Audio: Welcome', 'Áudio: Welcome'],
  [
    'variable',
    {
      assignments: [
        { name: 'total', value: '=total + 1' },
        { name: 'tier', value: 'gold' },
        { name: 'city', value: '{{last_input}}' },
      ],
    },
    'total = =total + 1\ntier = gold +1 more',
    'total = =total + 1\ntier = gold +1 a mais',
  ],
  ['send_message', { channel: 'whatsapp', to: '{{caller}}', text: 'Your protocol is {{protocol}}' }, 'WhatsApp → {{caller}}\nYour protocol is {{protocol}}', 'WhatsApp → {{caller}}\nYour protocol is {{protocol}}'],
  ['whatsapp_template', { template_name: 'order_ready', language: 'pt_BR', buttons: ['Pick up', 'Deliver'] }, 'order_ready (pt_BR)\nPick up · Deliver', 'order_ready (pt_BR)\nPick up · Deliver'],
  [
    'api_switch',
    { method: 'GET', url: 'https://api.example.com/customers/{{caller}}', attribute: 'status', cases: [{ value: 'late', exit: 'collections' }] },
    'GET https://api.example.com/customers/{{caller}}\nstatus · Cases: 1',
    'GET https://api.example.com/customers/{{caller}}\nstatus · Casos: 1',
  ],
  ['send_dtmf', { digits: '12w#' }, '12w#', '12w#'],
  ['condition', { match: 'all', rules: [{ left: '{{caller}}', op: 'starts_with', right: '55' }] }, '{{caller}} starts with 55', '{{caller}} começa com 55'],
  [
    'condition',
    {
      match: 'any',
      rules: [
        { left: '{{caller}}', op: 'starts_with', right: '55' },
        { left: '{{last_input}}', op: 'empty', right: '' },
      ],
    },
    '{{caller}} starts with 55 or\n{{last_input}} is empty',
    '{{caller}} começa com 55 ou\n{{last_input}} está vazio',
  ],
  [
    'voice_menu',
    { ...prompt, options: [{ digits: '1' }, { digits: '2' }, { digits: '9' }] },
    'Welcome to Voxplan. For sales press 1, for support press 2,…\nOptions: 3',
    'Welcome to Voxplan. For sales press 1, for support press 2,…\nOpções: 3',
  ],
  ['speech_detection', { ...prompt, voice_text: 'Which city?', variables: [{ name: 'city' }, { name: 'street' }] }, 'Which city?\ncity, street', 'Which city?\ncity, street'],
  ['http_request', { method: 'POST', url: 'https://crm.example.com/leads', save: [{ variable: 'lead_id', path: 'id' }] }, 'POST https://crm.example.com/leads\nlead_id', 'POST https://crm.example.com/leads\nlead_id'],
  ['chatbot', { provider: 'openai', assistant_id: 'asst_42', initial_text: 'Hi! How can I help?' }, 'OpenAI · asst_42\nHi! How can I help?', 'OpenAI · asst_42\nHi! How can I help?'],
  ['recording', { format: 'mp3', analyses: [{ kind: 'summary' }, { kind: 'topics', items: ['billing'] }] }, 'MP3\nSummary, Topics', 'MP3\nResumo, Tópicos'],
  ['fx', { script: 'return "vip"', returns: ['vip', 'regular'] }, 'vip, regular', 'vip, regular'],
  ['call_plan', { plan_id: 7 }, 'Support', 'Support'],
  ['hangup', { cause: 'busy' }, 'Busy', 'Ocupado'],
  ['voice_chat_switch', {}, '', ''],
];

describe('summaries', () => {
  test('every block type has one here', () => {
    expect(new Set(summaries.map(([type]) => type))).toEqual(new Set(blockTypes));
  });

  test.each(summaries)('%s: %j', (type, data, en, pt) => {
    const editor = blockEditor(type)!;
    expect(editor.summary(data, context('en'))).toBe(en);
    expect(editor.summary(data, context('pt'))).toBe(pt);
  });

  test('data being edited (fields missing or of the wrong type) still gives a summary', () => {
    for (const editor of blockEditors) {
      for (const data of [undefined, null, {}, { options: 'x', rules: 3, assignments: [null], analyses: [1] }]) {
        expect(typeof editor.summary(data, context('en')), editor.type).toBe('string');
      }
    }
  });

  test('a reference the console cannot name yet leaves the line out', () => {
    expect(blockEditor('destination')!.summary({ destination_id: 99, timeout_s: 20 }, context('en'))).toBe('20 s');
  });
});

test("a voice menu's option exits carry their labels", () => {
  const menu = blockEditor('voice_menu')!;
  const data = { options: [{ digits: '1', label: 'Sales' }, { digits: '2', label: '' }] };
  expect(menu.exitLabel?.('1', data, 'en')).toBe('1 · Sales');
  expect(menu.exitLabel?.('2', data, 'en')).toBeUndefined();
  expect(menu.exitLabel?.('timeout', data, 'en')).toBeUndefined();
});
