import { ActionIcon, Tooltip } from '@mantine/core';
import { IconEdit, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** A row's edit and remove buttons; their test ids are `<prefix>-edit` and `<prefix>-remove`. */
export function EditRemoveActions({ testIdPrefix, onEdit, onRemove }: { testIdPrefix: string; onEdit(): void; onRemove(): void }) {
  const { t } = useTranslation();
  return (
    <>
      <Tooltip label={t('common.edit')}>
        <ActionIcon variant="subtle" aria-label={t('common.edit')} onClick={onEdit} data-testid={`${testIdPrefix}-edit`}>
          <IconEdit size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('common.remove')}>
        <ActionIcon variant="subtle" color="red" aria-label={t('common.remove')} onClick={onRemove} data-testid={`${testIdPrefix}-remove`}>
          <IconTrash size={16} />
        </ActionIcon>
      </Tooltip>
    </>
  );
}
