/** The form's data as its fields read it: a data path's parts, and a value taken as text, row or list whatever it holds. */
export type Row = Record<string, unknown>;

export const childPath = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

export const asText = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));

export const asRow = (value: unknown): Row => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : {});

export const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
