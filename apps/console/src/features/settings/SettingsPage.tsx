import { Badge, Button, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { type Configuration, systemSettingType } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { SettingFormModal } from './SettingFormModal.tsx';

const isSystem = (setting: Configuration) => setting.type === systemSettingType;

const columns: Column<Configuration>[] = [
  { field: 'name', labelKey: 'settings.name', type: 'text' },
  {
    field: 'value',
    labelKey: 'settings.value',
    type: 'text',
    render: (setting) => (
      <Text size="sm" maw={320} truncate="end" title={setting.value}>
        {setting.value === '' ? '—' : setting.value}
      </Text>
    ),
  },
  { field: 'category', labelKey: 'settings.category', type: 'text' },
  {
    field: 'type',
    labelKey: 'settings.type',
    type: 'text',
    render: (setting) => (
      <Badge variant="light" color={isSystem(setting) ? 'gray' : 'indigo'}>
        {setting.type}
      </Badge>
    ),
  },
  {
    field: 'description',
    labelKey: 'settings.description',
    type: 'text',
    render: (setting) => (
      <Text size="sm" maw={360} truncate="end" title={setting.description}>
        {setting.description === '' ? '—' : setting.description}
      </Text>
    ),
  },
];

const searchFields = ['name', 'value', 'category', 'description'];

export default function SettingsPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<Configuration | 'new' | null>(null);
  const removeRow = useRemoveRow('/configurations');

  // Spec section 5: settings of type "sistema" cannot be removed.
  const isRemovable = (setting: Configuration) => !isSystem(setting);

  const confirmRemove = (setting: Configuration) => {
    removeRow(setting.id);
  };

  return (
    <>
      <DataTable<Configuration>
        tableId="settings"
        resource="/configurations"
        titleKey="nav.generalSettings"
        columns={columns}
        searchFields={searchFields}
        canRemove={isRemovable}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="setting-new">
            {t('settings.new')}
          </Button>
        }
        rowActions={(setting) => (
          <EditRemoveActions testIdPrefix="setting" onEdit={() => setEditing(setting)} onRemove={isRemovable(setting) ? () => confirmRemove(setting) : undefined} />
        )}
      />
      {editing !== null && <SettingFormModal setting={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
