import { Badge, Button, Group, Text } from '@mantine/core';
import { IconCalendarDown, IconPlus } from '@tabler/icons-react';
import type { Holiday } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { HolidayFormModal } from './HolidayFormModal.tsx';
import { HolidayImportModal } from './HolidayImportModal.tsx';
import { levelOptions } from './levels.ts';

function DateCell({ holiday }: { holiday: Holiday }) {
  const { t } = useTranslation();
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm" ff="monospace">
        {holiday.date}
      </Text>
      {holiday.recurring && (
        <Badge variant="light" color="indigo" size="sm">
          {t('holidays.everyYear')}
        </Badge>
      )}
    </Group>
  );
}

const place = (value: string) => (value === '' ? '—' : value);

const columns: Column<Holiday>[] = [
  { field: 'date', labelKey: 'holidays.date', type: 'date', render: (holiday) => <DateCell holiday={holiday} /> },
  { field: 'name', labelKey: 'holidays.name', type: 'text' },
  { field: 'level', labelKey: 'holidays.level', type: 'enum', options: levelOptions },
  { field: 'country', labelKey: 'holidays.country', type: 'text' },
  { field: 'state', labelKey: 'holidays.state', type: 'text', render: (holiday) => place(holiday.state) },
  { field: 'city', labelKey: 'holidays.city', type: 'text', render: (holiday) => place(holiday.city) },
];

const searchFields = ['name', 'country', 'state', 'city', 'date'];

export default function HolidaysPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<Holiday | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const removeRow = useRemoveRow('/holidays');

  return (
    <>
      <DataTable<Holiday>
        tableId="holidays"
        resource="/holidays"
        titleKey="nav.holidays"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'date', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Group gap="xs">
            <Button variant="default" leftSection={<IconCalendarDown size={16} />} onClick={() => setImporting(true)} data-testid="holiday-import">
              {t('holidays.import')}
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="holiday-new">
              {t('holidays.new')}
            </Button>
          </Group>
        }
        rowActions={(holiday) => <EditRemoveActions testIdPrefix="holiday" onEdit={() => setEditing(holiday)} onRemove={() => removeRow(holiday.id)} />}
      />
      {editing !== null && <HolidayFormModal holiday={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
      {importing && <HolidayImportModal opened onClose={() => setImporting(false)} />}
    </>
  );
}
