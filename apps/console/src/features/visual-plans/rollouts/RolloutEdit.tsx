import { Button, Group, Modal } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { showError } from '../../../lib/errors.ts';
import { toast } from '../../../lib/notify.ts';
import type { Rollout, RolloutSettings } from './rollout-api.ts';
import { RolloutFields } from './RolloutFields.tsx';

/**
 * A running rollout's test numbers and automatic rollback, changed from the versions drawer as
 * they were set when publishing (`PATCH …/rollout`, audited): the share has its own control beside.
 * A refusal (`invalid_input`, more than 100 contacts) says why and changes nothing.
 */
export function RolloutEdit({ rollout, planId, tenantId, onClose, onSaved }: { rollout: Rollout; planId: number; tenantId: number; onClose(): void; onSaved(): void }) {
  const { t } = useTranslation();
  const [value, setValue] = useState<RolloutSettings>({ share: rollout.share, pinned: rollout.pinned, auto_rollback: rollout.auto_rollback });
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      const answer = await api.patch<Rollout>(`/visual-plans/${planId}/rollout`, { pinned: value.pinned, auto_rollback: value.auto_rollback }, { tenantId });
      toast('success', t('rollouts.edited', { version: answer.candidate_version }));
      onSaved();
      onClose();
    } catch (error) {
      showError(error, t);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title={t('rollouts.rulesTitle', { version: rollout.candidate_version })} closeButtonProps={{ 'aria-label': t('common.close') }} data-testid="rollout-edit-dialog">
      <RolloutFields value={value} onChange={setValue} withShare={false} />
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button loading={busy} onClick={() => void save()} data-testid="rollout-edit-save">
          {t('common.save')}
        </Button>
      </Group>
    </Modal>
  );
}
