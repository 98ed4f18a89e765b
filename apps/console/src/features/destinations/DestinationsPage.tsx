import { Button, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { Destination } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { DestinationFormModal } from './DestinationFormModal.tsx';
import { kindOptions } from './kinds.ts';

/** A queue has no URI: its cell says it is a queue and how many agents serve it. */
function UriCell({ destination }: { destination: Destination }) {
  const { t } = useTranslation();
  if (destination.chat_target === 'queue') return <Text size="sm">{t('destinations.queueOf', { count: destination.agent_ids.length })}</Text>;
  return (
    <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
      {destination.uri}
    </Text>
  );
}

const columns: Column<Destination>[] = [
  { field: 'name', labelKey: 'destinations.name', type: 'text' },
  { field: 'kind', labelKey: 'destinations.kind', type: 'enum', options: kindOptions },
  {
    field: 'uri',
    labelKey: 'destinations.uri',
    type: 'text',
    render: (destination) => <UriCell destination={destination} />,
  },
  { field: 'description', labelKey: 'destinations.description', type: 'text' },
];

/** Where plans send calls (SIP or tel URIs) and chats (https URLs). */
export default function DestinationsPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<Destination | 'new' | null>(null);
  const removeRow = useRemoveRow('/destinations');

  return (
    <>
      <DataTable<Destination>
        tableId="destinations"
        resource="/destinations"
        titleKey="nav.destinations"
        columns={columns}
        searchFields={['name', 'uri', 'description']}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="destination-new">
            {t('destinations.new')}
          </Button>
        }
        rowActions={(destination) => (
          <EditRemoveActions testIdPrefix="destination" onEdit={() => setEditing(destination)} onRemove={() => removeRow(destination.id)} />
        )}
      />
      {editing !== null && <DestinationFormModal destination={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
