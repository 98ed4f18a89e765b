/** A column of a DataTable: its field, heading, type (for sorting and filters) and how a cell shows. DataTable and its AdvancedFilters both read it. */
import type { ReactNode } from 'react';
import type { ColumnType } from './where.ts';

export interface Column<Row> {
  field: string;
  labelKey: string;
  type: ColumnType;
  /** For enum columns: the values and the i18n key of each. */
  options?: { value: string; labelKey: string }[];
  sortable?: boolean;
  filterable?: boolean;
  render?: (row: Row) => ReactNode;
}
