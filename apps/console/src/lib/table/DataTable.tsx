import {
  Badge,
  Button,
  Checkbox,
  Group,
  Kbd,
  Pagination,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useHotkeys, useLocalStorage } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconSearch, IconTrash } from '@tabler/icons-react';
import { type KeyboardEvent, type MouseEvent, type ReactNode, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmRemoval } from '../confirm.tsx';
import { showError } from '../errors.ts';
import { formatDateTime } from '../format.ts';
import { toast } from '../notify.ts';
import { PageError } from '../PageError.tsx';
import { RefreshControl, useAutoRefresh } from '../RefreshControl.tsx';
import { useCanWrite } from '../auth.tsx';
import { useAllTenants, useTenants } from '../tenants.ts';
import { AdvancedFilters } from './AdvancedFilters.tsx';
import { useResourceCount, useResourceList, useResourceMutations } from './use-resource.ts';
import type { Column } from './column.ts';
import { buildWhere, type ColumnType, type FieldFilter, nextSort, type SortState } from './where.ts';

export type { Column };

export interface DataTableProps<Row extends { id: number }> {
  /** Remembers this table's page size. */
  tableId: string;
  resource: string;
  titleKey: string;
  columns: Column<Row>[];
  searchFields: string[];
  /** More ways the search text may match (buildWhere's searchClauses); keep it stable (module level). */
  searchClauses?: (search: string) => Record<string, unknown>[];
  defaultSort?: SortState;
  baseWhere?: Record<string, unknown>;
  toolbar?: ReactNode;
  /** A screen's own filters, shown between the title and the table (they reach the list through baseWhere). */
  filterBar?: ReactNode;
  /** Actions on the rows in view, for everyone (guests too), beside the refresh: an export of what the filters select. */
  viewActions?: (view: { where: Record<string, unknown> | undefined; order: string[] | undefined }) => ReactNode;
  rowActions?: (row: Row) => ReactNode;
  /** What a click on a row, or Enter on the focused row, opens; the row's own buttons and links keep theirs. */
  onRowOpen?: (row: Row) => void;
  /** Rows that may be selected for bulk removal; omit to hide removal. */
  canRemove?: (row: Row) => boolean;
}

/** A click on one of these inside a row is theirs, not the row's. */
const interactive = 'a, button, input, label, [role="button"], [role="checkbox"]';

export const PAGE_SIZES = ['10', '25', '50', '100'];
export const DEFAULT_PAGE_SIZE = 10;

function formatCell(value: unknown, type: ColumnType, locale: string): ReactNode {
  if (value === null || value === undefined || value === '') return '—';
  if (type === 'date') return formatDateTime(String(value), locale);
  return String(value);
}

/**
 * On all tenants, the rows of a tenant-owned resource (they carry tenant_id) come from every
 * tenant: a column names each row's tenant. Undefined when the list is not such a list.
 */
function useTenantColumn<Row>(rows: Row[], columns: Column<Row>[]): Column<Row> | undefined {
  const allTenants = useAllTenants();
  const tenants = useTenants();
  const tenantOwned = rows.some((row) => typeof row === 'object' && row !== null && 'tenant_id' in row);
  if (!allTenants || !tenantOwned || columns.some((column) => column.field === 'tenant_id')) return undefined;
  const names = new Map((tenants.data ?? []).map((tenant) => [tenant.id, tenant.name]));
  return {
    field: 'tenant_id',
    labelKey: 'table.tenant',
    type: 'number',
    filterable: false,
    render: (row) => {
      const id = (row as { tenant_id?: number | null }).tenant_id;
      return id === null || id === undefined ? '—' : (names.get(id) ?? String(id));
    },
  };
}

/** The table screen every list uses (spec section 2, "Table screens"). */
export function DataTable<Row extends { id: number }>(props: DataTableProps<Row>) {
  const { t, i18n } = useTranslation();
  const searchRef = useRef<HTMLInputElement>(null);
  const [pageSizeText, setPageSizeText] = useLocalStorage({ key: `page-size:${props.tableId}`, defaultValue: String(DEFAULT_PAGE_SIZE) });
  const pageSize = Number(pageSizeText) || DEFAULT_PAGE_SIZE;
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [filters, setFilters] = useState<FieldFilter[]>([]);
  const [sort, setSort] = useState<SortState>(props.defaultSort ?? null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [interval, setAutoRefresh] = useAutoRefresh(props.tableId);

  useHotkeys([['shift+K', () => searchRef.current?.focus()]]);

  const where = useMemo(
    () => buildWhere({ search, searchFields: props.searchFields, searchClauses: props.searchClauses, filters, base: props.baseWhere }),
    [search, props.searchFields, props.searchClauses, filters, props.baseWhere],
  );
  const filter = useMemo(
    () => ({ where, order: sort ? [`${sort.field} ${sort.direction}`] : undefined, limit: pageSize, skip: (page - 1) * pageSize }),
    [where, sort, pageSize, page],
  );
  const list = useResourceList<Row>(props.resource, filter, interval);
  const count = useResourceCount(props.resource, where, interval);
  const { removeMany } = useResourceMutations<Row>(props.resource);

  const rows = list.data ?? [];
  const tenantColumn = useTenantColumn(rows, props.columns);
  const columns = tenantColumn ? [...props.columns, tenantColumn] : props.columns;
  const total = count.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  // Guests read and never write: no bulk removal, and the toolbar (creating, importing) is not theirs.
  const canWrite = useCanWrite();
  const removable = canWrite ? props.canRemove : undefined;
  const selectableRows = removable ? rows.filter(removable) : [];
  const allSelected = selectableRows.length > 0 && selectableRows.every((row) => selected.has(row.id));

  // A selection is of rows the user sees: once the search, the filters or the page size change,
  // rows selected before may be out of sight, and a bulk removal must not take them unseen.
  const resetView = () => {
    setPage(1);
    setSelected(new Set());
  };
  // A screen's own filters (baseWhere) narrow the list as the table's do: back to the first page.
  const [shownBase, setShownBase] = useState(props.baseWhere);
  if (shownBase !== props.baseWhere) {
    setShownBase(props.baseWhere);
    resetView();
  }
  const toggleRow = (id: number) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const confirmBulkRemove = () => {
    if (selected.size === 0) {
      toast('warning', t('table.noneSelected'));
      return;
    }
    confirmRemoval({
      message: t('table.removeManyMessage', { count: selected.size }),
      onConfirm: () =>
        removeMany.mutate([...selected], {
          onSuccess: (result) => {
            toast('success', t('table.removedMany', { count: result.count }));
            setSelected(new Set());
          },
          onError: (error) => {
            toast('error', t('table.removeManyError'));
            showError(error, t);
          },
        }),
    });
  };

  const sortIcon = (field: string) => {
    if (sort?.field !== field) return <IconArrowsSort size={14} opacity={0.4} />;
    return sort.direction === 'ASC' ? <IconArrowUp size={14} /> : <IconArrowDown size={14} />;
  };

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>{t(props.titleKey)}</Title>
        <Group gap="xs">{canWrite && props.toolbar}</Group>
      </Group>
      {props.filterBar}
      <Paper withBorder p="sm">
        <Group justify="space-between" mb="sm" gap="xs">
          <Group gap="xs">
            <TextInput
              ref={searchRef}
              aria-label={t('table.search')}
              placeholder={t('table.search')}
              leftSection={<IconSearch size={16} />}
              rightSection={<Kbd size="xs">{t('table.searchShortcut')}</Kbd>}
              rightSectionWidth={44}
              value={search}
              onChange={(event) => {
                setSearch(event.currentTarget.value);
                resetView();
              }}
              w={260}
              data-testid="table-search"
            />
            <AdvancedFilters
              columns={props.columns.filter((column) => column.filterable !== false)}
              filters={filters}
              onChange={(next) => {
                setFilters(next);
                resetView();
              }}
            />
          </Group>
          <Group gap="xs">
            {removable && (
              <Button
                variant="light"
                color="red"
                leftSection={<IconTrash size={16} />}
                onClick={confirmBulkRemove}
                data-testid="bulk-remove"
              >
                {t('table.removeSelected', { count: selected.size })}
              </Button>
            )}
            {props.viewActions?.({ where, order: filter.order })}
            <RefreshControl
              seconds={interval}
              onIntervalChange={setAutoRefresh}
              onRefresh={() => void Promise.all([list.refetch(), count.refetch()])}
              refreshing={list.isFetching}
              testId="table-refresh"
            />
          </Group>
        </Group>

        {list.isError ? (
          <PageError error={list.error} onRetry={() => void list.refetch()} />
        ) : (
          <ScrollArea>
            <Table striped highlightOnHover verticalSpacing="xs" data-testid="data-table" aria-busy={list.isFetching}>
              <Table.Thead>
                <Table.Tr>
                  {removable && (
                    <Table.Th w={40}>
                      <Checkbox
                        aria-label={t('table.selectAll')}
                        checked={allSelected}
                        indeterminate={!allSelected && selectableRows.some((row) => selected.has(row.id))}
                        onChange={() =>
                          setSelected(allSelected ? new Set() : new Set(selectableRows.map((row) => row.id)))
                        }
                      />
                    </Table.Th>
                  )}
                  {columns.map((column) => (
                    <Table.Th key={column.field} aria-sort={sort?.field === column.field ? (sort.direction === 'ASC' ? 'ascending' : 'descending') : undefined}>
                      {column.sortable === false ? (
                        t(column.labelKey)
                      ) : (
                        <UnstyledButton
                          onClick={() => setSort((current) => nextSort(current, column.field))}
                          data-testid={`sort-${column.field}`}
                          style={{ fontWeight: 700, fontSize: 'inherit' }}
                        >
                          <Group gap={4} wrap="nowrap">
                            {t(column.labelKey)}
                            {sortIcon(column.field)}
                          </Group>
                        </UnstyledButton>
                      )}
                    </Table.Th>
                  ))}
                  {props.rowActions && <Table.Th w={1}>{t('table.actions')}</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => (
                  <Table.Tr
                    key={row.id}
                    data-testid="table-row"
                    {...(props.onRowOpen && {
                      tabIndex: 0,
                      style: { cursor: 'pointer' },
                      onClick: (event: MouseEvent<HTMLTableRowElement>) => {
                        if (!(event.target as Element).closest(interactive)) props.onRowOpen?.(row);
                      },
                      onKeyDown: (event: KeyboardEvent<HTMLTableRowElement>) => {
                        if (event.key === 'Enter' && event.target === event.currentTarget) props.onRowOpen?.(row);
                      },
                    })}
                  >
                    {removable && (
                      <Table.Td>
                        <Checkbox
                          aria-label={t('table.selectRow')}
                          disabled={!removable(row)}
                          checked={selected.has(row.id)}
                          onChange={() => toggleRow(row.id)}
                        />
                      </Table.Td>
                    )}
                    {columns.map((column) => (
                      <Table.Td key={column.field}>
                        {column.render
                          ? column.render(row)
                          : column.type === 'enum'
                            ? (
                                <Badge variant="light">
                                  {t(column.options?.find((o) => o.value === (row as Record<string, unknown>)[column.field])?.labelKey ?? 'common.unknown')}
                                </Badge>
                              )
                            : formatCell((row as Record<string, unknown>)[column.field], column.type, i18n.language)}
                      </Table.Td>
                    ))}
                    {props.rowActions && (
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          {props.rowActions(row)}
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {!list.isPending && rows.length === 0 && (
              <Text ta="center" c="dimmed" py="xl" data-testid="table-empty">
                {t('table.empty')}
              </Text>
            )}
            {list.isPending && (
              <Text ta="center" c="dimmed" py="xl">
                {t('common.loading')}
              </Text>
            )}
          </ScrollArea>
        )}

        <Group justify="space-between" mt="sm">
          <Group gap="xs">
            <Text size="sm" c="dimmed" data-testid="table-total">
              {t('table.total', { count: total })}
            </Text>
            <Select
              aria-label={t('table.pageSize')}
              data-testid="page-size"
              data={PAGE_SIZES}
              value={String(pageSize)}
              onChange={(value) => {
                setPageSizeText(value ?? String(DEFAULT_PAGE_SIZE));
                resetView();
              }}
              w={80}
              allowDeselect={false}
            />
          </Group>
          <Pagination total={pages} value={Math.min(page, pages)} onChange={setPage} size="sm" getControlProps={(control) => ({ 'aria-label': t(`table.page.${control}`) })} />
        </Group>
      </Paper>
    </Stack>
  );
}
