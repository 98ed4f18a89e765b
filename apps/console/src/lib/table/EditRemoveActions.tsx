import { ActionIcon, Tooltip } from '@mantine/core';
import { IconEdit, IconEye, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../auth.tsx';

/**
 * A row's edit and remove buttons, with the screen's own actions between them; test ids are
 * `<prefix>-edit` and `<prefix>-remove`. Without onRemove the row shows no remove button. A guest
 * gets a view button instead (`<prefix>-view`), which opens the same form read-only.
 */
export function EditRemoveActions({ testIdPrefix, onEdit, onRemove, children }: { testIdPrefix: string; onEdit(): void; onRemove?(): void; children?: ReactNode }) {
  const { t } = useTranslation();
  if (!useCanWrite()) {
    return (
      <>
        <Tooltip label={t('common.view')}>
          <ActionIcon variant="subtle" aria-label={t('common.view')} onClick={onEdit} data-testid={`${testIdPrefix}-view`}>
            <IconEye size={16} />
          </ActionIcon>
        </Tooltip>
        {children}
      </>
    );
  }
  return (
    <>
      <Tooltip label={t('common.edit')}>
        <ActionIcon variant="subtle" aria-label={t('common.edit')} onClick={onEdit} data-testid={`${testIdPrefix}-edit`}>
          <IconEdit size={16} />
        </ActionIcon>
      </Tooltip>
      {children}
      {onRemove && (
        <Tooltip label={t('common.remove')}>
          <ActionIcon variant="subtle" color="red" aria-label={t('common.remove')} onClick={onRemove} data-testid={`${testIdPrefix}-remove`}>
            <IconTrash size={16} />
          </ActionIcon>
        </Tooltip>
      )}
    </>
  );
}
