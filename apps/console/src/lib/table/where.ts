export type ColumnType = 'text' | 'number' | 'date' | 'enum';

/** One advanced filter as the user set it up. */
export type FieldFilter =
  | { field: string; type: 'text'; mode: 'contains' | 'equals'; value: string }
  | { field: string; type: 'number' | 'date'; min?: string; max?: string }
  | { field: string; type: 'enum'; values: string[] };

export type SortState = { field: string; direction: 'ASC' | 'DESC' } | null;

/** Spec section 4: a column's sort goes ascending, then descending, then off. */
export function nextSort(current: SortState, field: string): SortState {
  if (!current || current.field !== field) return { field, direction: 'ASC' };
  if (current.direction === 'ASC') return { field, direction: 'DESC' };
  return null;
}

/** Text a `like` pattern matches literally (its `%` and `_` escaped). */
export const escapeLike = (text: string) => text.replace(/[%_]/g, (ch) => `\\${ch}`);

function filterClause(filter: FieldFilter, toNumber: (raw: string) => number): Record<string, unknown> | undefined {
  switch (filter.type) {
    case 'text':
      if (!filter.value) return undefined;
      return filter.mode === 'equals'
        ? { [filter.field]: filter.value }
        : { [filter.field]: { like: `%${escapeLike(filter.value)}%` } };
    case 'enum':
      return filter.values.length > 0 ? { [filter.field]: { inq: filter.values } } : undefined;
    case 'number':
    case 'date': {
      const convert = (raw: string) => (filter.type === 'number' ? toNumber(raw) : new Date(raw).toISOString());
      const range: Record<string, unknown> = {};
      if (filter.min) range.gte = convert(filter.min);
      // A date's upper bound includes the whole day the user picked.
      if (filter.max) range.lte = filter.type === 'date' ? new Date(new Date(filter.max).getTime() + 86_399_999).toISOString() : convert(filter.max);
      return Object.keys(range).length > 0 ? { [filter.field]: range } : undefined;
    }
  }
}

/** Search text over the searchable fields, and every advanced filter, as one API where clause. */
export function buildWhere(options: {
  search: string;
  searchFields: string[];
  filters: FieldFilter[];
  base?: Record<string, unknown>;
  /** More ways the search text may match, beside the fields' text (a phone number typed in another form). */
  searchClauses?: (search: string) => Record<string, unknown>[];
}): Record<string, unknown> | undefined {
  const clauses: Record<string, unknown>[] = [];
  if (options.base) clauses.push(options.base);
  const search = options.search.trim();
  if (search && options.searchFields.length > 0) {
    const pattern = `%${escapeLike(search)}%`;
    clauses.push({ or: [...options.searchFields.map((field) => ({ [field]: { like: pattern } })), ...(options.searchClauses?.(search) ?? [])] });
  }
  for (const filter of options.filters) {
    const clause = filterClause(filter, Number);
    if (clause) clauses.push(clause);
  }
  if (clauses.length === 0) return undefined;
  return clauses.length === 1 ? clauses[0] : { and: clauses };
}
