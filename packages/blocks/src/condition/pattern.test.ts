import { expect, test } from 'vitest';
import { patternProblem as inBrowser } from './pattern.browser.ts';
import { patternProblem as onServer } from './pattern.ts';

const accepted = ['^\\d{8}$', '^(55|1)\\d+', 'sales|support', '^[A-Za-z ]+$', '\\bhelp\\b', '(?<area>\\d{2})-\\d+', 'é+', '^\\p{L}+$'];
const refused = ['(?=a)b', '(?!x)y', '(?<=a)b', '(?<!a)b', '(a)\\1', '(unclosed', '[z-a]'];

test('the editor refuses, as the server does, what RE2 cannot run, and accepts what it can', () => {
  for (const pattern of accepted) {
    expect(onServer(pattern), pattern).toBeUndefined();
    expect(inBrowser(pattern), pattern).toBeUndefined();
  }
  for (const pattern of refused) {
    expect(onServer(pattern), pattern).toBeTypeOf('string');
    expect(inBrowser(pattern), pattern).toBeTypeOf('string');
  }
});
