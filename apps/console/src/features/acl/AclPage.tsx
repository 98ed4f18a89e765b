import { ActionIcon, Button, Tooltip } from '@mantine/core';
import { IconEdit, IconPlus, IconTrash } from '@tabler/icons-react';
import type { AclEntry } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
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
        rowActions={(entry) => (
          <>
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" aria-label={t('common.edit')} onClick={() => setEditing(entry)} data-testid="acl-edit">
                <IconEdit size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={t('common.remove')}>
              <ActionIcon variant="subtle" color="red" aria-label={t('common.remove')} onClick={() => removeRow(entry.id)} data-testid="acl-remove">
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </>
        )}
      />
      {editing !== null && <AclFormModal entry={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
