/**
 * Unique indexes are named ux_<table>__<column>[__<column>] so that a violation can be traced
 * to its columns on both dialects: PostgreSQL names the constraint, SQLite lists the columns.
 */
export function uniqueViolationColumns(error: unknown): string[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === '23505' && typeof e.constraint === 'string') {
    const [, ...columns] = e.constraint.replace(/^ux_/, '').split('__');
    return columns;
  }
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof e.message === 'string') {
    const list = e.message.replace(/^UNIQUE constraint failed:\s*/, '');
    return list.split(',').map((qualified) => qualified.trim().split('.').pop() ?? '');
  }
  return undefined;
}

export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
