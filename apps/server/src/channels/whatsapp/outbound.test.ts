import { describe, expect, test } from 'vitest';
import { LIST_BUTTON, replyMessages, shorten, splitText, textMessages, whatsappLimits } from './outbound.ts';

const options = (labels: string[]) => labels.map((label, index) => ({ id: String(index + 1), label }));
const lengthOf = (text: string) => Array.from(text).length;

describe('texts over Meta’s limit', () => {
  test('a long text leaves as several messages, each within 4,096 characters, cut between words, nothing lost', () => {
    const words = Array.from({ length: 1500 }, (_, index) => `word${index}`);
    const messages = textMessages(words.join(' '));
    expect(messages.length).toBe(Math.ceil(words.join(' ').length / whatsappLimits.text));
    for (const message of messages) {
      expect(message.type).toBe('text');
      if (message.type === 'text') expect(lengthOf(message.text.body)).toBeLessThanOrEqual(whatsappLimits.text);
    }
    const bodies = messages.map((message) => (message.type === 'text' ? message.text.body : ''));
    expect(bodies.join(' ').split(' ')).toEqual(words);
  });

  test('a cut never splits a character outside the basic plane (emoji)', () => {
    const pieces = splitText('😀'.repeat(10), 4);
    expect(pieces).toEqual(['😀😀😀😀', '😀😀😀😀', '😀😀']);
  });

  test('an empty text sends nothing', () => {
    expect(textMessages('')).toEqual([]);
    expect(textMessages('  ')).toEqual([]);
  });

  test('shorten keeps short titles whole and ends long ones with an ellipsis within the limit', () => {
    expect(shorten('Sales', 20)).toBe('Sales');
    expect(shorten('Enterprise with volume discounts', 20)).toBe('Enterprise with vol…');
    expect(lengthOf(shorten('Enterprise with volume discounts', 20))).toBe(20);
  });
});

describe('a menu’s reply', () => {
  test('up to three short labels: reply buttons whose ids are the options’ digits', () => {
    expect(replyMessages('Pick one', options(['Sales', 'Support']))).toEqual([
      {
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Pick one' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: '1', title: 'Sales' } },
              { type: 'reply', reply: { id: '2', title: 'Support' } },
            ],
          },
        },
      },
    ]);
  });

  test('a label over 20 characters, or four options: a list, with the whole label as the description of a shortened row', () => {
    const [list] = replyMessages('Pick one', options(['Sales', 'A label that is far too long for a row']));
    expect(list).toEqual({
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'Pick one' },
        action: {
          button: LIST_BUTTON,
          sections: [{ rows: [{ id: '1', title: 'Sales' }, { id: '2', title: 'A label that is far too…', description: 'A label that is far too long for a row' }] }],
        },
      },
    });
    expect(replyMessages('Pick', options(['a', 'b', 'c', 'd']))[0]).toMatchObject({ interactive: { type: 'list' } });
  });

  test('more than ten options: numbered lines the user answers by number or label', () => {
    const labels = Array.from({ length: 11 }, (_, index) => `Option ${index + 1}`);
    expect(replyMessages('Pick one', options(labels))).toEqual([
      { type: 'text', text: { body: ['Pick one', ...labels.map((label, index) => `${index + 1} - ${label}`)].join('\n'), preview_url: false } },
    ]);
  });

  test('a prompt longer than a button body goes first as text; the body keeps its last part', () => {
    const prompt = `${'a'.repeat(1000)} ${'b'.repeat(500)}`;
    const messages = replyMessages(prompt, options(['Yes', 'No']));
    expect(messages.map((message) => message.type)).toEqual(['text', 'interactive']);
    expect(messages[0]).toMatchObject({ text: { body: 'a'.repeat(1000) } });
    expect(messages[1]).toMatchObject({ interactive: { body: { text: 'b'.repeat(500) } } });
  });

  test('a menu without a prompt still has the body Meta requires: its choices', () => {
    expect(replyMessages('', options(['Yes', 'No']))[0]).toMatchObject({ interactive: { type: 'button', body: { text: 'Yes / No' } } });
  });
});
