import { describe, expect, test } from 'vitest';
import { buildWhere, nextSort } from './where.ts';

describe('table filters', () => {
  test('sort cycles ascending, descending, off, and restarts on another column', () => {
    expect(nextSort(null, 'name')).toEqual({ field: 'name', direction: 'ASC' });
    expect(nextSort({ field: 'name', direction: 'ASC' }, 'name')).toEqual({ field: 'name', direction: 'DESC' });
    expect(nextSort({ field: 'name', direction: 'DESC' }, 'name')).toBeNull();
    expect(nextSort({ field: 'name', direction: 'DESC' }, 'email')).toEqual({ field: 'email', direction: 'ASC' });
  });

  test('search looks in every searchable field, with wildcards escaped', () => {
    expect(buildWhere({ search: ' 50%_off ', searchFields: ['name', 'email'], filters: [] })).toEqual({
      or: [{ name: { like: '%50\\%\\_off%' } }, { email: { like: '%50\\%\\_off%' } }],
    });
  });

  test('advanced filters become where operators and combine with the search', () => {
    const where = buildWhere({
      search: 'ann',
      searchFields: ['name'],
      filters: [
        { field: 'kind', type: 'enum', values: ['voice'] },
        { field: 'id', type: 'number', min: '2', max: '9' },
        { field: 'created_time', type: 'date', min: '2026-01-01' },
        { field: 'uri', type: 'text', mode: 'equals', value: 'sip:a@b' },
        { field: 'name', type: 'text', mode: 'contains', value: '' },
      ],
    });
    expect(where).toEqual({
      and: [
        { or: [{ name: { like: '%ann%' } }] },
        { kind: { inq: ['voice'] } },
        { id: { gte: 2, lte: 9 } },
        { created_time: { gte: '2026-01-01T00:00:00.000Z' } },
        { uri: 'sip:a@b' },
      ],
    });
    expect(buildWhere({ search: '', searchFields: ['name'], filters: [] })).toBeUndefined();
  });
});
