import { Button, Group, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlayerPause, IconPlayerPlay, IconPlayerStop, type Icon } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Campaign, CampaignAction } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useCanWrite } from '../../lib/auth.tsx';
import { showError } from '../../lib/errors.ts';
import { toast } from '../../lib/notify.ts';
import { actionsFor, CAMPAIGNS, nextActionFor } from './status.ts';

const icons: Record<CampaignAction, Icon> = { start: IconPlayerPlay, pause: IconPlayerPause, resume: IconPlayerPlay, cancel: IconPlayerStop };

/** Start, pause, resume and cancel through the API; every campaign query is asked again after. */
export function useCampaignAction() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ campaign, action }: { campaign: Campaign; action: CampaignAction }) => api.post<Campaign>(`${CAMPAIGNS}/${campaign.id}/${action}`),
    onSuccess: (_, { campaign, action }) => {
      toast('success', t(`campaigns.done.${action}`, { name: campaign.name }));
      void queryClient.invalidateQueries({ queryKey: [CAMPAIGNS] });
    },
    onError: (error) => showError(error, t),
  });
}

/** Cancelling cannot be undone: it asks first. */
function confirmCancel(campaign: Campaign, onConfirm: () => void, t: (key: string, options?: Record<string, unknown>) => string) {
  modals.openConfirmModal({
    title: t('campaigns.cancelTitle'),
    children: <Text size="sm">{t('campaigns.cancelMessage', { name: campaign.name })}</Text>,
    labels: { confirm: t('campaigns.actions.cancel'), cancel: t('campaigns.keepRunning') },
    confirmProps: { color: 'red', 'data-testid': 'campaign-cancel-confirm' } as Record<string, string>,
    onConfirm,
  });
}

/**
 * The controls the campaign's status allows (a guest sees none: the server would refuse them).
 * `only: 'next'` shows the one that moves it on (a list's row); otherwise cancel comes too.
 */
export function CampaignControls({ campaign, only, size = 'sm' }: { campaign: Campaign; only?: 'next'; size?: 'xs' | 'sm' }) {
  const { t } = useTranslation();
  const canWrite = useCanWrite();
  const run = useCampaignAction();
  if (!canWrite) return null;
  const next = nextActionFor(campaign.status);
  const actions = only === 'next' ? (next ? [next] : []) : actionsFor(campaign.status);
  if (actions.length === 0) return null;
  return (
    <Group gap="xs" wrap="nowrap">
      {actions.map((action) => {
        const ActionIcon = icons[action];
        const go = () => run.mutate({ campaign, action });
        return (
          <Button
            key={action}
            size={size}
            variant={action === 'cancel' ? 'light' : action === 'pause' ? 'default' : 'filled'}
            color={action === 'cancel' ? 'red' : undefined}
            leftSection={<ActionIcon size={16} />}
            loading={run.isPending && run.variables?.action === action && run.variables.campaign.id === campaign.id}
            onClick={action === 'cancel' ? () => confirmCancel(campaign, go, t) : go}
            data-testid={`campaign-${action}`}
          >
            {t(`campaigns.actions.${action}`)}
          </Button>
        );
      })}
    </Group>
  );
}
