import { Button, Group, Text } from '@mantine/core';
import { IconFileSpreadsheet, IconPlus, IconUpload } from '@tabler/icons-react';
import type { DoNotCallEntry } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadAttachment } from '../../lib/api/download.ts';
import { showError } from '../../lib/errors.ts';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { DoNotCallFormModal } from './DoNotCallFormModal.tsx';
import { DoNotCallImportModal } from './DoNotCallImportModal.tsx';
import { phoneSearchClauses } from './phone-search.ts';
import { DO_NOT_CALL } from './use-do-not-call.ts';

const columns: Column<DoNotCallEntry>[] = [
  {
    field: 'number',
    labelKey: 'doNotCall.number',
    type: 'text',
    render: (entry) => (
      <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
        {entry.number}
      </Text>
    ),
  },
  { field: 'reason', labelKey: 'doNotCall.reason', type: 'text' },
  { field: 'added_by', labelKey: 'doNotCall.addedBy', type: 'text' },
  { field: 'created_time', labelKey: 'doNotCall.createdTime', type: 'date' },
];

const searchFields = ['number', 'reason', 'added_by'];

/** The entries the table's filters select, as the CSV the import takes back. */
function ExportButton({ where }: { where: Record<string, unknown> | undefined }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    try {
      await downloadAttachment(`${DO_NOT_CALL}/export.csv`, 'do-not-call.csv', { query: { filter: where && { where } } });
    } catch (error) {
      showError(error, t);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="default" leftSection={<IconFileSpreadsheet size={16} />} loading={busy} onClick={() => void start()} data-testid="dnc-export">
      {t('doNotCall.export')}
    </Button>
  );
}

export default function DoNotCallPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<DoNotCallEntry | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const removeRow = useRemoveRow(DO_NOT_CALL);

  return (
    <>
      <DataTable<DoNotCallEntry>
        tableId="do-not-call"
        resource={DO_NOT_CALL}
        titleKey="nav.doNotCall"
        columns={columns}
        searchFields={searchFields}
        searchClauses={phoneSearchClauses}
        defaultSort={{ field: 'created_time', direction: 'DESC' }}
        canRemove={() => true}
        toolbar={
          <Group gap="xs">
            <Button variant="default" leftSection={<IconUpload size={16} />} onClick={() => setImporting(true)} data-testid="dnc-import">
              {t('doNotCall.import')}
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="dnc-new">
              {t('doNotCall.new')}
            </Button>
          </Group>
        }
        viewActions={({ where }) => <ExportButton where={where} />}
        rowActions={(entry) => <EditRemoveActions testIdPrefix="dnc" onEdit={() => setEditing(entry)} onRemove={() => removeRow(entry.id)} />}
      />
      {editing !== null && <DoNotCallFormModal entry={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
      {importing && <DoNotCallImportModal opened onClose={() => setImporting(false)} />}
    </>
  );
}
