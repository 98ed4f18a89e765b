import { Badge, Button, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { type Configuration, parseSettingValue, systemSettingNamed, systemSettingType } from '@voxplan/contracts';
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { categoryLabel, categoryOptions, typeLabel, typeOptions } from './labels.ts';
import { SettingFormModal } from './SettingFormModal.tsx';

const isSystem = (setting: Configuration) => setting.type === systemSettingType;

function Truncated({ text, maw, title }: { text: string; maw: number; title: string }) {
  return (
    <Text size="sm" maw={maw} truncate="end" title={title}>
      {text === '' ? '—' : text}
    </Text>
  );
}

/** A system setting's on/off value in the user's language; any other value as stored. */
function SettingValue({ setting }: { setting: Configuration }) {
  const { t } = useTranslation();
  const definition = systemSettingNamed(setting.name);
  const on = definition?.kind === 'boolean' ? parseSettingValue(definition, setting.value) : undefined;
  const text = on === undefined ? setting.value : t(on ? 'settings.on' : 'settings.off');
  return <Truncated text={text} maw={320} title={setting.value} />;
}

/** A system setting's description comes from the registry, translated; the others' as written. */
function SettingDescription({ setting }: { setting: Configuration }) {
  const { t } = useTranslation();
  const definition = systemSettingNamed(setting.name);
  const text = definition ? t(definition.descriptionKey) : setting.description;
  return <Truncated text={text} maw={360} title={text} />;
}

function Translated({ text, label }: { text: string; label: (text: string, t: TFunction) => string }) {
  const { t } = useTranslation();
  return label(text, t);
}

const columns: Column<Configuration>[] = [
  { field: 'name', labelKey: 'settings.name', type: 'text' },
  {
    field: 'value',
    labelKey: 'settings.value',
    type: 'text',
    render: (setting) => <SettingValue setting={setting} />,
  },
  // Filtered by the known categories and types, by their names in the user's language.
  {
    field: 'category',
    labelKey: 'settings.category',
    type: 'enum',
    options: categoryOptions,
    render: (setting) => <Translated text={setting.category} label={categoryLabel} />,
  },
  {
    field: 'type',
    labelKey: 'settings.type',
    type: 'enum',
    options: typeOptions,
    render: (setting) => (
      <Badge variant="light" color={isSystem(setting) ? 'gray' : 'indigo'}>
        <Translated text={setting.type} label={typeLabel} />
      </Badge>
    ),
  },
  {
    field: 'description',
    labelKey: 'settings.description',
    type: 'text',
    render: (setting) => <SettingDescription setting={setting} />,
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
