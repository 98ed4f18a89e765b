import i18next from 'i18next';
import { beforeAll, describe, expect, test } from 'vitest';
import en from '../../../i18n/en.screens.json';
import pt from '../../../i18n/pt.screens.json';
import enRollouts from '../../../i18n/en.rollouts.json';
import ptRollouts from '../../../i18n/pt.rollouts.json';
import type { RolloutAutoRollbackEvent } from '@voxplan/contracts';
import { confidenceText, rollbackAlertText } from './rollout-texts.ts';

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

describe('an automatic rollback told in the console', () => {
  const event = (cause: RolloutAutoRollbackEvent['cause']): RolloutAutoRollbackEvent => ({
    type: 'rollout.auto_rollback',
    rollout_id: 7,
    plan_id: 3,
    plan_name: 'Front desk',
    base_version: 4,
    candidate_version: 5,
    cause,
    note: 'Reversão automática… (the tenant’s language)',
    at: '2026-11-29T19:00:00.000Z',
  });

  test('names the plan and the versions, and says why in the reader’s language', () => {
    const worse = event({ rule: 'goal_worse', candidate_goal_rate: 0.2, base_goal_rate: 0.3, confidence: 0.979 });
    expect(rollbackAlertText(worse, i18next.getFixedT('en'), 'en')).toEqual({
      title: 'Front desk: v5 rolled back automatically',
      reason: 'Its goal rate was 20% against 30% for v4: lower, at 97.9% confidence. Every call and chat meets v4 again.',
    });
    expect(rollbackAlertText(worse, i18next.getFixedT('pt'), 'pt')).toEqual({
      title: 'Front desk: v5 revertida automaticamente',
      reason: 'A taxa de meta foi 20% contra 30% da v4: menor, com 97,9% de confiança. Todas as chamadas e conversas voltam à v4.',
    });
    const failing = event({ rule: 'max_failure_rate', failures: 8, sessions: 40, failure_rate: 0.2, max_failure_rate: 10 });
    expect(rollbackAlertText(failing, i18next.getFixedT('en'), 'en').reason).toBe(
      '8 of its 40 sessions (20%) ended in an engine error or a failed hand-off, above the 10% allowed. Every call and chat meets v4 again.',
    );
  });
});
