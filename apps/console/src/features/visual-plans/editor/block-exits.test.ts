import { expect, test } from 'vitest';
import { visibleExits } from './block-exits.ts';

const names = (exits: { exit: string; known: boolean }[]) => exits.map(({ exit, known }) => (known ? exit : `${exit}?`));

test('the exits come from the data as typed, without the schema: a menu option as soon as it has keys', () => {
  expect(names(visibleExits('voice_menu', { options: [{ digits: '1' }, { digits: '2', label: 'Sales' }] }, []))).toEqual(['1', '2', 'timeout', 'invalid']);
  // Invalid data (keys a menu refuses) still shows what the user typed.
  expect(names(visibleExits('voice_menu', { options: [{ digits: '1x' }] }, []))).toEqual(['1x', 'timeout', 'invalid']);
});

test('data the exits cannot be read from shows the exits every instance has, and connected exits stay', () => {
  expect(names(visibleExits('api_switch', {}, []))).toEqual(['default', 'error']);
  expect(names(visibleExits('fx', { script: 'return "ok"' }, ['ok']))).toEqual(['error', 'ok?']);
  expect(names(visibleExits('teleport', {}, ['next']))).toEqual(['next?']);
});
