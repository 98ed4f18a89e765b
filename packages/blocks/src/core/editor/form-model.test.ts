import { describe, expect, test } from 'vitest';
import { blockEditors } from '../../editor-registry.ts';
import { blockDefinition, blockTypes } from '../../registry.ts';
import { emptyRequiredFields, type FieldDescriptor, formFieldsOf, newBlockData, validateData } from './form-model.ts';
import { editorTexts, fieldLabel } from './texts.ts';

/** A field list as one line per field: `options: list(digits:text,label:text)`. */
function signature(field: FieldDescriptor): string {
  switch (field.kind) {
    case 'list':
      return `list(${field.fields.map((item) => (item.key === '' ? signature(item) : `${item.key}:${signature(item)}`)).join(',')})`;
    case 'variants':
      return `variants(${field.variants.map((variant) => `${variant.value}[${variant.fields.map((item) => `${item.key}:${signature(item)}`).join(',')}]`).join(',')})`;
    case 'record':
      return `record(${signature(field.value)})`;
    case 'reference':
      return `reference(${field.reference}${field.nullable ? ', or none' : ''})`;
    case 'select':
      return `select(${field.options.join('|')})`;
    case 'number':
      return `number(${field.min ?? ''}..${field.max ?? ''})`;
    case 'template':
    case 'text':
      return field.multiline ? `${field.kind}, lines` : field.kind;
    default:
      return field.kind;
  }
}

const prompt = { text_to_speech: 'switch', voice_text: 'template, lines', audio_id: 'reference(audio, or none)', chat_text: 'template, lines', language: 'language' };
const request = {
  method: 'select(GET|POST|PUT|PATCH|DELETE)',
  url: 'template',
  headers: 'record(template)',
  query: 'record(template)',
  body: 'json',
  timeout_ms: 'number(100..30000)',
};

const expectedFields: Record<string, Record<string, string>> = {
  start: { generate_protocol: 'switch', hangup_chat_message: 'template, lines', ignore_call: 'switch' },
  destination: { destination_id: 'reference(destination)', timeout_s: 'number(1..600)', chat_wait_min: 'number(1..480)' },
  date_range: { date_range_id: 'reference(date_range)' },
  play_message: prompt,
  variable: { assignments: 'list(name:text,value:value)' },
  send_message: { channel: 'select(sms|whatsapp)', to: 'template', text: 'template, lines', fallback_template_name: 'whatsapp_template' },
  whatsapp_template: { template_name: 'whatsapp_template' },
  api_switch: { ...request, attribute: 'text', cases: 'list(value:text,exit:text)', async_call: 'switch' },
  send_dtmf: { digits: 'template' },
  condition: {
    match: 'select(all|any)',
    rules: 'list(left:value,op:select(eq|neq|gt|gte|lt|lte|contains|starts_with|matches|empty|not_empty),right:value)',
  },
  voice_menu: {
    ...prompt,
    options: 'list(digits:keys,label:text)',
    max_digits: 'number(1..20)',
    timeout_s: 'number(1..60)',
    max_retries: 'number(0..10)',
    invalid_text: 'template, lines',
  },
  speech_detection: {
    ...prompt,
    variables: 'list(name:text,description:text)',
    max_retries: 'number(0..10)',
    retry_text: 'template, lines',
    transcription_prompt: 'text, lines',
    language: 'language',
  },
  http_request: { ...request, save: 'list(variable:text,path:text)' },
  chatbot: {
    provider: 'select(openai|sippulse)',
    assistant_id: 'text',
    agent_id: 'text',
    initial_text: 'template, lines',
    additional_instructions: 'template, lines',
    max_turns: 'number(1..100)',
    language: 'language',
  },
  recording: {
    analyses:
      'variants(sentiment[items:list(text)],topics[items:list(text)],keywords[items:list(text)],questions[items:list(text)],summary[max_length:number(1..250)])',
    min_duration_s: 'number(0..86400)',
    percentage: 'number(0..100)',
    format: 'select(wav|mp3)',
    anonymization: 'switch',
  },
  fx: { script: 'code', returns: 'list(text)' },
  call_plan: { plan_id: 'reference(plan)' },
  hangup: { cause: 'select(normal_clearing|busy|rejected)' },
  voice_chat_switch: {},
};

/**
 * What a new block still needs from the user (its data as added from the palette is otherwise
 * complete), and values that complete it.
 */
const stillRequired: Record<string, { paths: string[]; fill: Record<string, unknown> }> = {
  destination: { paths: ['destination_id'], fill: { destination_id: 7 } },
  date_range: { paths: ['date_range_id'], fill: { date_range_id: 7 } },
  api_switch: { paths: ['url', 'attribute'], fill: { url: 'https://api.example.com/{{caller}}', attribute: 'status' } },
  send_dtmf: { paths: ['digits'], fill: { digits: '12w#' } },
  speech_detection: { paths: ['variables.0.name'], fill: { variables: [{ name: 'city', description: 'the city named' }] } },
  http_request: { paths: ['url'], fill: { url: 'https://api.example.com' } },
  call_plan: { paths: ['plan_id'], fill: { plan_id: 7 } },
};

/** A wrong value for each block, and the path its issue must have. */
const badValues: Record<string, { data: Record<string, unknown>; path: string }> = {
  start: { data: { generate_protocol: 'yes' }, path: 'generate_protocol' },
  destination: { data: { destination_id: 7, timeout_s: 601 }, path: 'timeout_s' },
  date_range: { data: { date_range_id: 1.5 }, path: 'date_range_id' },
  play_message: { data: { text_to_speech: false, audio_id: null }, path: 'audio_id' },
  variable: { data: { assignments: [{ name: 'total', value: '=1' }, { name: 'caller', value: 'x' }] }, path: 'assignments.1.name' },
  send_message: { data: { channel: 'fax' }, path: 'channel' },
  whatsapp_template: { data: { template_name: 'Order Ready' }, path: 'template_name' },
  api_switch: { data: { ...stillRequired.api_switch!.fill, cases: [{ value: 'ok', exit: 'default' }] }, path: 'cases.0.exit' },
  send_dtmf: { data: { digits: '12x' }, path: 'digits' },
  condition: { data: { rules: [{ left: 'a', op: 'eq', right: 'b' }, { left: '{{caller}}', op: 'matches', right: '(a)\\1' }] }, path: 'rules.1.right' },
  voice_menu: { data: { max_digits: 2, options: [{ digits: '1' }, { digits: '12' }, { digits: '1' }] }, path: 'options.2.digits' },
  speech_detection: { data: { variables: [{ name: '1city' }] }, path: 'variables.0.name' },
  http_request: { data: { url: 'https://api.example.com', body: '{"a": }' }, path: 'body' },
  chatbot: { data: { max_turns: 0 }, path: 'max_turns' },
  recording: { data: { analyses: [{ kind: 'summary' }, { kind: 'topics', items: ['a', 'b', 'c', 'd'] }] }, path: 'analyses.1.items' },
  fx: { data: { script: 'return "a"', returns: ['a', 'error'] }, path: 'returns.1' },
  call_plan: { data: { plan_id: 0 }, path: 'plan_id' },
  hangup: { data: { cause: 'nobody_home' }, path: 'cause' },
  voice_chat_switch: { data: { mode: 'voice' }, path: '' },
};

const everyField = (fields: readonly FieldDescriptor[], inRow = false): Array<{ field: FieldDescriptor; inRow: boolean }> =>
  fields.flatMap((field) => [
    { field, inRow },
    ...(field.kind === 'list' ? everyField(field.fields, true) : []),
    ...(field.kind === 'variants' ? field.variants.flatMap((variant) => everyField(variant.fields, true)) : []),
  ]);

test('the tables above name every block type', () => {
  expect(Object.keys(expectedFields)).toEqual([...blockTypes]);
  expect(Object.keys(badValues)).toEqual([...blockTypes]);
});

describe.each(blockEditors.map((editor) => [editor.type, editor] as const))('%s', (type, editor) => {
  const schema = blockDefinition(type)!.schema;
  const fields = formFieldsOf(editor);
  const complete = () => ({ ...newBlockData(editor), ...stillRequired[type]?.fill });

  test('gives each field of its schema the input its kind needs', () => {
    expect(Object.fromEntries(fields.map((field) => [field.key, signature(field)]))).toEqual(expectedFields[type]);
  });

  test('labels every field and every row field, in both languages', () => {
    for (const language of ['en', 'pt'] as const) {
      const texts = editor.description.texts[language];
      for (const { field, inRow } of everyField(fields)) {
        if (field.key === '') continue; // an item of a list of single values is named by its list
        expect(fieldLabel(texts, field.key, inRow), `${language} ${field.schemaPath}`).not.toBe(field.key);
      }
    }
  });

  test('starts a new block with every default filled in, asking only for what has none', () => {
    expect([...validateData(schema, newBlockData(editor)).keys()]).toEqual(stillRequired[type]?.paths ?? []);
    const data = complete();
    expect(validateData(schema, data)).toEqual(new Map());
    // Parsing adds nothing: the form showed every default the block will be saved with.
    expect(schema.parse(data)).toEqual(data);
  });

  test("adds list rows that hold each of the item's fields, and whose issues stay on the row", () => {
    for (const field of fields) {
      if (field.kind !== 'list' && field.kind !== 'variants') continue;
      const rows = field.kind === 'list' ? [field.itemDefault] : field.variants.map((variant) => variant.defaultValue);
      for (const row of rows) {
        const data = complete();
        const list = [...(data[field.key] as unknown[]), row];
        if (field.kind === 'list' && field.itemIsObject) expect(Object.keys(row as object).sort()).toEqual(field.fields.map((item) => item.key).sort());
        const issues = [...validateData(schema, { ...data, [field.key]: list }).keys()];
        for (const path of issues) expect(path.startsWith(`${field.key}.${list.length - 1}`), path).toBe(true);
      }
    }
  });

  test('reports a wrong value at the path of its field, in either language', () => {
    const { data, path } = badValues[type]!;
    const bad = { ...complete(), ...data };
    const english = validateData(schema, bad, 'en');
    const portuguese = validateData(schema, bad, 'pt');
    expect([...english.keys()]).toContain(path);
    expect(portuguese.get(path)).toEqual(expect.any(String));
  });
});

test('an empty required field says it is required, in the user language', () => {
  const schema = blockDefinition('destination')!.schema;
  expect(validateData(schema, { destination_id: null, timeout_s: 30 }, 'en').get('destination_id')).toBe(editorTexts.en.required);
  expect(validateData(schema, { destination_id: null, timeout_s: 30 }, 'pt').get('destination_id')).toBe('Obrigatório');
});

test('the required fields a block leaves empty are named by their form labels, a list row\'s by its row', () => {
  const destination = blockEditors.find((editor) => editor.type === 'destination')!;
  expect(emptyRequiredFields(destination, newBlockData(destination), 'en')).toEqual([{ path: 'destination_id', label: 'Destination' }]);
  expect(emptyRequiredFields(destination, newBlockData(destination), 'pt')).toEqual([{ path: 'destination_id', label: 'Destino' }]);
  expect(emptyRequiredFields(destination, { ...newBlockData(destination), destination_id: 4 }, 'en')).toEqual([]);
  const menu = blockEditors.find((editor) => editor.type === 'voice_menu')!;
  const empty = emptyRequiredFields(menu, { ...newBlockData(menu), options: [{ digits: '1', label: 'Sales' }, { digits: '', label: 'Support' }] }, 'en');
  expect(empty).toContainEqual({ path: 'options.1.digits', label: 'Keys 2' });
  // Other issues (a number out of range) are the form's to show, not "empty".
  expect(emptyRequiredFields(destination, { ...newBlockData(destination), destination_id: 4, timeout_s: -1 }, 'en')).toEqual([]);
});

test("zod's issues read in Portuguese, the blocks' own ones by their code", () => {
  const menu = blockEditors.find((editor) => editor.type === 'voice_menu')!;
  const data = { ...newBlockData(menu), timeout_s: 61, options: [{ digits: '1' }, { digits: '1' }] };
  const english = validateData(blockDefinition('voice_menu')!.schema, data, 'en');
  const portuguese = validateData(blockDefinition('voice_menu')!.schema, data, 'pt');
  expect(english.get('timeout_s')).toMatch(/too big/i);
  expect(portuguese.get('timeout_s')).toMatch(/grande/i);
  expect(english.get('options.1.digits')).toBe("'1' appears twice");
  expect(portuguese.get('options.1.digits')).toBe('Este valor aparece duas vezes');
});

test("a new block starts from its schema's defaults and its editor part's changes, its own copy each time", () => {
  const menu = blockEditors.find((editor) => editor.type === 'voice_menu')!;
  const first = newBlockData(menu);
  expect(first).toMatchObject({ options: [{ digits: '1', label: '' }], max_digits: 1, timeout_s: 5 });
  (first.options as unknown[]).push({ digits: '2' });
  expect(newBlockData(menu).options).toEqual([{ digits: '1', label: '' }]);
});
