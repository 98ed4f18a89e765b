import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { AclEntry } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { AclFormModal } from './AclFormModal.tsx';

const columns: Column<AclEntry>[] = [
  { field: 'name', labelKey: 'acl.name', type: 'text' },
  { field: 'address', labelKey: 'acl.address', type: 'text' },
  { field: 'description', labelKey: 'acl.description', type: 'text' },
  { field: 'created_time', labelKey: 'acl.createdTime', type: 'date' },
];

/** The networks the tenant's voice channels accept calls from. */
export default function AclPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<AclEntry | 'new' | null>(null);
  const removeRow = useRemoveRow('/acl');

  return (
    <>
      <DataTable<AclEntry>
        tableId="acl"
        resource="/acl"
        titleKey="nav.acl"
        columns={columns}
        searchFields={['name', 'address', 'description']}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="acl-new">
            {t('acl.new')}
          </Button>
        }
        rowActions={(entry) => <EditRemoveActions testIdPrefix="acl" onEdit={() => setEditing(entry)} onRemove={() => removeRow(entry.id)} />}
      />
      {editing !== null && <AclFormModal entry={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
