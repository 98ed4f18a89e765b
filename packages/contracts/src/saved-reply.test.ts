import { describe, expect, test } from 'vitest';
import { fillSavedReply } from './saved-reply-text.ts';

describe('fillSavedReply', () => {
  test('the customer’s name replaces {{name}}', () => {
    expect(fillSavedReply('Hello {{name}}, how can I help?', 'Maria')).toBe('Hello Maria, how can I help?');
    expect(fillSavedReply('{{ name }}: your order left today.', 'João')).toBe('João: your order left today.');
  });

  test('unknown, the name is left out with what led to it, and the sentence still reads', () => {
    expect(fillSavedReply('Hello {{name}}, how can I help?', null)).toBe('Hello, how can I help?');
    expect(fillSavedReply('Hi {{name}}!', '')).toBe('Hi!');
    expect(fillSavedReply('{{name}}, your order left today.', undefined)).toBe('Your order left today.');
    expect(fillSavedReply('No variable here.', null)).toBe('No variable here.');
  });
});
