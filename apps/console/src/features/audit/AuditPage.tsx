import { ActionIcon, Tooltip } from '@mantine/core';
import { IconFileSearch } from '@tabler/icons-react';
import { type AuditEntry, auditActions } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { AuditDetailsModal, entityName } from './AuditDetailsModal.tsx';
import { auditEntities } from './entities.ts';

const entityOptions = auditEntities.map((entity) => ({ value: entity, labelKey: `audit.entities.${entity}` }));

function EntityName({ entity }: { entity: string }) {
  const { t } = useTranslation();
  return entityName(entity, t);
}

const columns: Column<AuditEntry>[] = [
  { field: 'created_time', labelKey: 'audit.createdTime', type: 'date' },
  { field: 'username', labelKey: 'audit.username', type: 'text' },
  {
    field: 'action',
    labelKey: 'audit.action',
    type: 'enum',
    options: auditActions.map((action) => ({ value: action, labelKey: `audit.actions.${action}` })),
  },
  // Filtered by the entities' names in the user's language, not by what the server stores.
  { field: 'entity', labelKey: 'audit.entity', type: 'enum', options: entityOptions, render: (entry) => <EntityName entity={entry.entity} /> },
  { field: 'entity_id', labelKey: 'audit.entityId', type: 'text' },
  { field: 'source_ip', labelKey: 'audit.sourceIp', type: 'text' },
];

const searchFields = ['username', 'entity', 'entity_id', 'source_ip'];

/** The system audit: read-only, newest first. */
export default function AuditPage() {
  const { t } = useTranslation();
  const [shown, setShown] = useState<AuditEntry | null>(null);
  // The entry stays rendered while the modal plays its close animation.
  const [opened, setOpened] = useState(false);
  return (
    <>
      <DataTable<AuditEntry>
        tableId="audit"
        resource="/audit"
        titleKey="nav.audit"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'id', direction: 'DESC' }}
        rowActions={(entry) => (
          <Tooltip label={t('audit.details')}>
            <ActionIcon variant="subtle" aria-label={t('audit.details')} onClick={() => {
                setShown(entry);
                setOpened(true);
              }} data-testid="audit-details">
              <IconFileSearch size={16} />
            </ActionIcon>
          </Tooltip>
        )}
      />
      <AuditDetailsModal entry={shown} opened={opened} onClose={() => setOpened(false)} />
    </>
  );
}
