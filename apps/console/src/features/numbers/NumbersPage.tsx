import { Badge, Button, Group, Text, Tooltip } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { missingWhatsappFields, type PhoneNumber } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { NumberFormModal } from './NumberFormModal.tsx';
import { providerLabelKey, providerOptions } from './providers.ts';

function RulesCount({ number }: { number: PhoneNumber }) {
  const { t } = useTranslation();
  if (number.rules.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('numbers.noRulesShort')}
      </Text>
    );
  }
  return <Badge variant="light">{t('numbers.ruleCount', { count: number.rules.length })}</Badge>;
}

/** The provider, and for a WhatsApp number still lacking what Meta needs, that it is a draft. */
function ProviderCell({ number }: { number: PhoneNumber }) {
  const { t } = useTranslation();
  return (
    <Group gap={6} wrap="nowrap">
      <Badge variant="light">{t(providerLabelKey(number.provider))}</Badge>
      {missingWhatsappFields(number).length > 0 && (
        <Tooltip label={t('numbers.draftWarning')} multiline w={280}>
          <Badge color="yellow" variant="outline" data-testid="number-draft-badge">
            {t('numbers.draft')}
          </Badge>
        </Tooltip>
      )}
    </Group>
  );
}

const columns: Column<PhoneNumber>[] = [
  {
    field: 'number',
    labelKey: 'numbers.number',
    type: 'text',
    render: (number) => (
      <Text size="sm" ff="monospace">
        {number.number}
      </Text>
    ),
  },
  { field: 'provider', labelKey: 'numbers.provider', type: 'enum', options: providerOptions, render: (number) => <ProviderCell number={number} /> },
  { field: 'description', labelKey: 'numbers.description', type: 'text' },
  { field: 'rules', labelKey: 'numbers.rules', type: 'text', sortable: false, filterable: false, render: (number) => <RulesCount number={number} /> },
];

/** The tenant's phone numbers (DIDs): which plan a call or chat to each runs. */
export default function NumbersPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<PhoneNumber | 'new' | null>(null);
  // A web chat just created: its form stays open on it, with the tag to copy (issue 36).
  const [createdId, setCreatedId] = useState<number | null>(null);
  const close = () => {
    setEditing(null);
    setCreatedId(null);
  };
  const removeRow = useRemoveRow('/numbers');

  return (
    <>
      <DataTable<PhoneNumber>
        tableId="numbers"
        resource="/numbers"
        titleKey="nav.numbers"
        columns={columns}
        searchFields={['number', 'description']}
        defaultSort={{ field: 'number', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="number-new">
            {t('numbers.new')}
          </Button>
        }
        rowActions={(number) => <EditRemoveActions testIdPrefix="number" onEdit={() => setEditing(number)} onRemove={() => removeRow(number.id)} />}
      />
      {editing !== null && (
        <NumberFormModal
          // The web chat just created keeps its form (no closing and opening again); another number gets its own.
          key={editing === 'new' || editing.id === createdId ? 'new' : editing.id}
          number={editing === 'new' ? undefined : editing}
          opened
          onClose={close}
          onCreated={(saved) => {
            setCreatedId(saved.id);
            setEditing(saved);
          }}
          justCreated={editing !== 'new' && editing.id === createdId}
        />
      )}
    </>
  );
}
