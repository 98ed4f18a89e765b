import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { blockDefinitions, blockTypes } from './registry.ts';
import { blockRuntimes } from './runtime-registry.ts';

/** The table of blocks.md, in its order, and the blocks added since (docs/engine.md, "Blocks added since"). */
const documentedTypes = [
  'start',
  'destination',
  'date_range',
  'play_message',
  'variable',
  'send_message',
  'whatsapp_template',
  'api_switch',
  'send_dtmf',
  'condition',
  'voice_menu',
  'speech_detection',
  'http_request',
  'chatbot',
  'recording',
  'fx',
  'call_plan',
  'hangup',
  'voice_chat_switch',
];

const leaves = (tree: object, prefix = ''): Array<[string, unknown]> =>
  Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? leaves(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value] as [string, unknown]],
  );
const keysOf = (tree: object) => leaves(tree).map(([key]) => key);

test('the registry holds exactly the block types of blocks.md', () => {
  expect([...blockTypes]).toEqual(documentedTypes);
  expect(Object.keys(blockRuntimes).sort()).toEqual([...documentedTypes].sort());
});

describe.each(blockDefinitions.map((definition) => [definition.type, definition] as const))('%s', (type, definition) => {
  test('lives in its own folder, named by its type, with definition, runtime, texts and tests', () => {
    const folder = path.join(import.meta.dirname, type);
    for (const file of ['definition.ts', 'runtime.ts', 'en.json', 'pt.json', `${type}.test.ts`]) expect(fs.existsSync(path.join(folder, file)), file).toBe(true);
    expect(blockRuntimes[type].type).toBe(type);
  });

  test('has the same texts in English and Portuguese, none empty', () => {
    const { en, pt } = definition.texts;
    expect(keysOf(pt).sort()).toEqual(keysOf(en).sort());
    for (const [key, value] of [...leaves(en), ...leaves(pt)]) expect(typeof value === 'string' && value.trim() !== '', key).toBe(true);
  });

  test('labels every field of its data and every exit it always has', () => {
    const shape = (definition.schema as unknown as z.ZodObject).shape;
    expect(Object.keys(definition.texts.en.fields).sort()).toEqual(Object.keys(shape).sort());
    expect(Object.keys(definition.texts.en.exits).sort()).toEqual([...definition.staticExits].sort());
  });
});
