import { IconEdit, IconEye, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../auth.tsx';
import { RowAction } from './RowAction.tsx';

/**
 * A row's edit and remove buttons, with the screen's own actions between them; test ids are
 * `<prefix>-edit` and `<prefix>-remove`. Without onRemove the row shows no remove button. A guest
 * gets a view button instead (`<prefix>-view`), which opens the same form read-only.
 */
export function EditRemoveActions({
  testIdPrefix,
  onEdit,
  onRemove,
  editLabel,
  children,
}: {
  testIdPrefix: string;
  onEdit(): void;
  onRemove?(): void;
  /** What editing is called on this screen, when not simply "Edit" (e.g. "Rename"). */
  editLabel?: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  if (!useCanWrite()) {
    return (
      <>
        <RowAction label={t('common.view')} icon={<IconEye size={16} />} onClick={onEdit} testId={`${testIdPrefix}-view`} />
        {children}
      </>
    );
  }
  return (
    <>
      <RowAction label={editLabel ?? t('common.edit')} icon={<IconEdit size={16} />} onClick={onEdit} testId={`${testIdPrefix}-edit`} />
      {children}
      {onRemove && <RowAction label={t('common.remove')} icon={<IconTrash size={16} />} color="red" onClick={onRemove} testId={`${testIdPrefix}-remove`} />}
    </>
  );
}
