import { describe, expect, test } from 'vitest';
import { phoneCountries } from '@voxplan/contracts';
import { getCountries } from 'libphonenumber-js/max';
import { isPhoneCountry, toE164 } from './phone-numbers.ts';

describe('toE164', () => {
  test('a national number is read in the default country, with its punctuation and trunk prefix', () => {
    expect(toE164('(11) 91234-5678', 'BR')).toBe('+5511912345678');
    expect(toE164('020 7946 0018', 'GB')).toBe('+442079460018');
  });

  test('a number written with + or 00 keeps its own country', () => {
    expect(toE164('+1 415 555 2671', 'BR')).toBe('+14155552671');
    expect(toE164('0044 20 7946 0018', 'BR')).toBe('+442079460018');
  });

  test('what is not a number of a real plan is null, not a guess', () => {
    expect(toE164('', 'BR')).toBeNull();
    expect(toE164('12', 'BR')).toBeNull();
    expect(toE164('not a number', 'BR')).toBeNull();
    expect(toE164('91234-5678')).toBeNull();
  });

  test('an unknown country is no default', () => {
    expect(isPhoneCountry('BR')).toBe(true);
    expect(isPhoneCountry('XX')).toBe(false);
    expect(toE164('(11) 91234-5678', 'XX')).toBeNull();
  });
});

test('the tenant form’s countries (contracts’ phoneCountries) are those libphonenumber reads', () => {
  expect([...phoneCountries]).toEqual(getCountries());
});
