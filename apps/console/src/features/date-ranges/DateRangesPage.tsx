import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { DateRange } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { DateRangeFormModal } from './DateRangeFormModal.tsx';

const columns: Column<DateRange>[] = [
  { field: 'name', labelKey: 'dateRanges.name', type: 'text' },
  { field: 'time_zone', labelKey: 'dateRanges.timeZone', type: 'text' },
  { field: 'country', labelKey: 'dateRanges.country', type: 'text' },
  { field: 'state', labelKey: 'dateRanges.state', type: 'text' },
  { field: 'city', labelKey: 'dateRanges.city', type: 'text' },
  { field: 'created_time', labelKey: 'dateRanges.createdTime', type: 'date' },
];

/** The tenant's schedules: weekly hours in a time zone, closed periods and the holidays of a place. */
export default function DateRangesPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<DateRange | 'new' | null>(null);
  const removeRow = useRemoveRow('/date-ranges');

  return (
    <>
      <DataTable<DateRange>
        tableId="date-ranges"
        resource="/date-ranges"
        titleKey="nav.dateRanges"
        columns={columns}
        searchFields={['name', 'time_zone', 'country', 'state', 'city']}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="date-range-new">
            {t('dateRanges.new')}
          </Button>
        }
        rowActions={(range) => <EditRemoveActions testIdPrefix="date-range" onEdit={() => setEditing(range)} onRemove={() => removeRow(range.id)} />}
      />
      {editing !== null && <DateRangeFormModal range={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
