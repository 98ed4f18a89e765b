import type { ReferenceKind } from '@voxplan/blocks/definitions';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, test } from 'vitest';
import enScreens from '../../../../i18n/en.screens.json';
import ptScreens from '../../../../i18n/pt.screens.json';
import { actionText, pathEntryText, type RunNaming, runBlockName } from './run-texts.ts';

const records: Record<string, string> = { 'audio:1': 'Welcome jingle', 'destination:3': 'Sales', 'date_range:5': 'Office hours' };
const referenceName = (kind: ReferenceKind, id: number | null | undefined) => (id == null ? undefined : records[`${kind}:${id}`]);
const nodes: RunNaming['nodes'] = [
  { id: 'schedule-84mu62', type: 'date_range', data: { date_range_id: 5 } },
  { id: 'sales-x1', type: 'destination', data: { destination_id: 3, timeout_s: 30 } },
];
const en: RunNaming = { language: 'en', referenceName, nodes };
const pt: RunNaming = { language: 'pt', referenceName, nodes };

let tEn: TFunction;
let tPt: TFunction;
beforeAll(async () => {
  const i18n = i18next.createInstance();
  await i18n.init({ lng: 'en', interpolation: { escapeValue: false }, resources: { en: { translation: enScreens }, pt: { translation: ptScreens } } });
  tEn = i18n.getFixedT('en');
  tPt = i18n.getFixedT('pt');
});

describe('the test panel names blocks and records as the person named them, never by ids', () => {
  test('a played audio is named by its name, in both languages', () => {
    const play = { type: 'play', audio_id: 1, url: '/audios/1/file' } as const;
    expect(actionText(play, en, tEn)).toBe('Plays the audio “Welcome jingle”');
    expect(actionText(play, pt, tPt)).toBe('Toca o áudio “Welcome jingle”');
    // An audio not (yet) among the tenant's names is not shown by its id either.
    expect(actionText({ ...play, audio_id: 99 }, en, tEn)).toBe('Plays an audio');
  });

  test("the path names a block as the canvas does and its exit by the exit's label", () => {
    expect(pathEntryText({ node_id: 'schedule-84mu62', type: 'date_range', exit: 'out_of_hours' }, en, tEn)).toBe('Date range · Office hours → Out of hours');
    expect(pathEntryText({ node_id: 'sales-x1', type: 'destination', exit: null }, en, tEn)).toBe('Destination · Sales');
    expect(pathEntryText({ node_id: 'schedule-84mu62', type: 'date_range', exit: 'out_of_hours' }, pt, tPt)).toBe('Horário · Office hours → Fora do horário');
  });

  test('a block the plan no longer has (or of another plan) is named by its type, not its id', () => {
    expect(runBlockName('gone-7', 'destination', en)).toBe('Destination');
    expect(pathEntryText({ node_id: 'gone-7', type: 'destination', exit: 'busy' }, en, tEn)).not.toContain('gone-7');
  });
});
