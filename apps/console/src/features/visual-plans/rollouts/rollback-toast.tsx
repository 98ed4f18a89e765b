import { Anchor, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { RolloutAutoRollbackEvent } from '@voxplan/contracts';
import i18n from 'i18next';
import { rollbackAlertText } from './rollout-texts.ts';

/**
 * An automatic rollback's notification: the plan and the versions, why, and a link to the plan.
 * It stays until closed, unlike the 3 s toasts that answer a person's own action: nobody did this
 * one, and it must not pass unseen while they look elsewhere on the screen.
 */
export function showRollbackToast(event: RolloutAutoRollbackEvent, navigate: (path: string) => void): void {
  const t = i18n.t.bind(i18n);
  const { title, reason } = rollbackAlertText(event, t, i18n.language);
  const id = `rollback-${event.rollout_id}`;
  const path = `/visual-plan/${event.plan_id}`;
  notifications.show({
    id,
    title,
    color: 'orange',
    autoClose: false,
    withCloseButton: true,
    closeButtonProps: { 'aria-label': t('common.close') },
    'data-testid': 'rollback-alert',
    message: (
      <Stack gap={4}>
        <Text size="sm" data-testid="rollback-alert-reason">
          {reason}
        </Text>
        <Anchor
          href={path}
          size="sm"
          data-testid="rollback-alert-open"
          onClick={(click) => {
            // The toasts live outside the router: it is asked to go there, and the toast closes.
            click.preventDefault();
            notifications.hide(id);
            navigate(path);
          }}
        >
          {t('rollouts.alert.open', { plan: event.plan_name })}
        </Anchor>
      </Stack>
    ),
  } as Parameters<typeof notifications.show>[0]);
}
