import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmRemoval } from '../confirm.tsx';
import { showError } from '../errors.ts';
import { toast } from '../notify.ts';
import { useResourceMutations } from './use-resource.ts';

/** A row's remove action: asks first, then removes and says how it went. */
export function useRemoveRow(resource: string) {
  const { t } = useTranslation();
  const { remove } = useResourceMutations(resource);
  const { mutate } = remove;
  return useCallback(
    (id: number) =>
      confirmRemoval({
        message: t('table.removeMessage'),
        onConfirm: () =>
          mutate(id, {
            onSuccess: () => toast('success', t('table.removed')),
            onError: (error) => showError(error, t),
          }),
      }),
    [mutate, t],
  );
}
