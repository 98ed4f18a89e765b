import i18next from 'i18next';
import { beforeAll, describe, expect, test } from 'vitest';
import en from '../../../i18n/en.screens.json';
import pt from '../../../i18n/pt.screens.json';
import enRollouts from '../../../i18n/en.rollouts.json';
import ptRollouts from '../../../i18n/pt.rollouts.json';
import { confidenceText } from './rollout-texts.ts';

const results = (comparison: { enough_data: boolean; goal_rate_difference: number | null; confidence: number | null }) => ({
  rollout: { candidate_version: 4 } as never,
  comparison,
});

// The rollout texts load with their screens (loadRolloutTexts); here they join the screens' texts as they do in the console.
describe('the confidence line', () => {
  beforeAll(async () => {
    await i18next.init({ lng: 'en', resources: { en: { translation: { ...en, ...enRollouts } }, pt: { translation: { ...pt, ...ptRollouts } } }, interpolation: { escapeValue: false } });
  });

  test('a difference in points with its confidence, higher or lower, in each language', () => {
    const en = i18next.getFixedT('en');
    const pt = i18next.getFixedT('pt');
    expect(confidenceText(results({ enough_data: true, goal_rate_difference: 0.061, confidence: 0.97 }), en, 'en')).toBe('v4’s goal rate is 6.1 points higher, 97% confidence.');
    expect(confidenceText(results({ enough_data: true, goal_rate_difference: -0.125, confidence: 0.991 }), en, 'en')).toBe('v4’s goal rate is 12.5 points lower, 99% confidence.');
    expect(confidenceText(results({ enough_data: true, goal_rate_difference: 0.061, confidence: 0.97 }), pt, 'pt')).toBe('A taxa de meta da v4 é 6,1 pontos maior, com 97% de confiança.');
  });

  test('too few sessions: not enough data yet', () => {
    expect(confidenceText(results({ enough_data: false, goal_rate_difference: 0.2, confidence: null }), i18next.getFixedT('en'), 'en')).toBe('Not enough data yet.');
  });
});
