import { describe, expect, test } from 'vitest';
import { phoneSearchClauses } from './phone-search.ts';

describe('do-not-call search', () => {
  test('any written form of a number becomes a run of its E.164 digits', () => {
    for (const typed of ['(11) 91234-5678', '011 91234 5678', '11.91234.5678']) expect(phoneSearchClauses(typed)).toEqual([{ number: { like: '%11912345678%' } }]);
    expect(phoneSearchClauses('+55 (11) 91234-5678')).toEqual([{ number: { like: '%5511912345678%' } }]);
    expect(phoneSearchClauses('0055 11 91234 5678')).toEqual([{ number: { like: '%5511912345678%' } }]);
  });

  test('text with few digits is left to the fields’ own search', () => {
    expect(phoneSearchClauses('asked twice')).toEqual([]);
    expect(phoneSearchClauses('2nd request')).toEqual([]);
  });
});
