import { Alert, Badge, Button, Group, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { useCanWrite } from '../../../lib/auth.tsx';
import { showError } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { toast } from '../../../lib/notify.ts';
import { type Rollout, rolloutKey, useRolloutHistory, useRunningRollout } from './rollout-api.ts';
import { RolloutEdit } from './RolloutEdit.tsx';
import { RolloutResults } from './RolloutResults.tsx';

/** The rule of an automatic rollback in words, or nothing when the rollout has none. */
function ruleText(rollout: Rollout, t: (key: string, options?: Record<string, unknown>) => string): string | null {
  const rule = rollout.auto_rollback;
  if (!rule) return null;
  const parts = [rule.goal_worse && t('rollouts.ruleGoal'), rule.max_failure_rate !== null && t('rollouts.ruleFailures', { rate: rule.max_failure_rate })].filter(Boolean);
  return parts.length === 0 ? null : t('rollouts.rule', { rules: parts.join('; ') });
}

/**
 * What is live: the published version alone, or two versions with their shares during a rollout,
 * the controls that end or change it (each one action, asked first), and its results side by side.
 */
export function RolloutPanel({ planId, tenantId, publishedVersion, onPromoted }: { planId: number; tenantId: number; publishedVersion: number | null; onPromoted(version: number): void }) {
  const { t, i18n } = useTranslation();
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const running = useRunningRollout(planId, tenantId);
  const history = useRolloutHistory(planId, tenantId);
  const [share, setShare] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const rollout = running.data ?? null;
  const lastEnded = rollout ? undefined : history.data?.find((entry) => entry.state !== 'running');

  const act = async (request: () => Promise<Rollout>, done: (answer: Rollout) => void) => {
    setBusy(true);
    try {
      done(await request());
      setShare(null);
    } catch (error) {
      showError(error, t);
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: rolloutKey(planId) });
      void queryClient.invalidateQueries({ queryKey: ['/visual-plans', 'versions', planId] });
    }
  };
  const ask = (kind: 'share' | 'promote' | 'rollback', current: Rollout, onConfirm: () => void) =>
    modals.openConfirmModal({
      title: t(`rollouts.confirm.${kind}Title`, { version: current.candidate_version, base: current.base_version, share }),
      children: <Text size="sm">{t(`rollouts.confirm.${kind}Message`, { version: current.candidate_version, base: current.base_version, share })}</Text>,
      labels: { confirm: t(kind === 'share' ? 'rollouts.changeShare' : `rollouts.${kind}`, { version: current.candidate_version }), cancel: t('common.cancel') },
      confirmProps: { color: kind === 'rollback' ? 'red' : undefined, 'data-testid': `confirm-rollout-${kind}` } as Record<string, string>,
      onConfirm,
    });
  const path = `/visual-plans/${planId}/rollout`;

  return (
    <Stack gap="sm" data-testid="rollout-panel">
      <Title order={3} size="h5">
        {t('rollouts.live')}
      </Title>
      {!rollout && (
        <Text size="sm" data-testid="rollout-live">
          {publishedVersion === null ? t('editor.versions.none') : t('rollouts.liveOne', { version: publishedVersion })}
        </Text>
      )}
      {lastEnded?.ended_reason === 'auto_rollback' && (
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} title={t('rollouts.autoRolledBack', { version: lastEnded.candidate_version })} data-testid="rollout-auto-note">
          <Text size="sm">{lastEnded.ended_note}</Text>
          <Text size="xs" c="dimmed">
            {formatDateTime(lastEnded.ended_time, i18n.language)}
          </Text>
        </Alert>
      )}
      {rollout && (
        <Paper withBorder p="sm" data-testid="rollout-running">
          <Stack gap="xs">
            {[
              { version: rollout.base_version, share: 100 - rollout.share, badge: t('rollouts.current') },
              { version: rollout.candidate_version, share: rollout.share, badge: t('rollouts.candidate') },
            ].map((entry) => (
              <Group key={entry.version} justify="space-between" wrap="nowrap" data-testid="rollout-version">
                <Group gap={6} wrap="nowrap">
                  <Text fw={500}>{t('rollouts.versionNumber', { version: entry.version })}</Text>
                  <Badge size="sm" variant="light">
                    {entry.badge}
                  </Badge>
                </Group>
                <Text fw={500} data-testid="rollout-version-share">
                  {t('rollouts.percent', { share: entry.share })}
                </Text>
              </Group>
            ))}
            <Text size="sm" c="dimmed" data-testid="rollout-pinned-list">
              {rollout.pinned.length === 0 ? t('rollouts.noPinned') : t('rollouts.pinnedList', { numbers: rollout.pinned.join(', ') })}
            </Text>
            {ruleText(rollout, t) && (
              <Text size="sm" c="dimmed" data-testid="rollout-rule">
                {ruleText(rollout, t)}
              </Text>
            )}
            {canWrite && (
              <>
                <Button variant="subtle" size="compact-sm" onClick={() => setEditing(true)} style={{ alignSelf: 'flex-start' }} data-testid="rollout-edit">
                  {t('rollouts.edit')}
                </Button>
                {editing && (
                  <RolloutEdit
                    rollout={rollout}
                    planId={planId}
                    tenantId={tenantId}
                    onClose={() => setEditing(false)}
                    onSaved={() => void queryClient.invalidateQueries({ queryKey: rolloutKey(planId) })}
                  />
                )}
                {/* Without the room (390 px), the button goes below the field rather than losing its words. */}
                <Group gap="xs" align="flex-end" wrap="wrap">
                  <NumberInput
                    label={t('rollouts.share')}
                    min={0}
                    max={100}
                    clampBehavior="strict"
                    allowDecimal={false}
                    suffix=" %"
                    w={170}
                    value={share ?? rollout.share}
                    onChange={(value) => setShare(typeof value === 'number' ? value : null)}
                    data-testid="rollout-share-input"
                  />
                  <Button
                    variant="default"
                    disabled={busy || share === null || share === rollout.share}
                    onClick={() =>
                      ask('share', rollout, () =>
                        void act(
                          () => api.patch<Rollout>(path, { share }, { tenantId }),
                          (answer) => toast('success', t('rollouts.shareChanged', { version: answer.candidate_version, share: answer.share })),
                        ),
                      )
                    }
                    style={{ flexShrink: 0 }}
                    data-testid="rollout-change-share"
                  >
                    {t('rollouts.changeShare')}
                  </Button>
                </Group>
                <Group gap="xs">
                  <Button
                    disabled={busy}
                    onClick={() =>
                      ask('promote', rollout, () =>
                        void act(
                          () => api.post<Rollout>(`${path}/promote`, undefined, { tenantId }),
                          (answer) => {
                            onPromoted(answer.candidate_version);
                            toast('success', t('rollouts.promoted', { version: answer.candidate_version }));
                          },
                        ),
                      )
                    }
                    data-testid="rollout-promote"
                  >
                    {t('rollouts.promote', { version: rollout.candidate_version })}
                  </Button>
                  <Button
                    color="red"
                    variant="light"
                    disabled={busy}
                    onClick={() =>
                      ask('rollback', rollout, () =>
                        void act(
                          () => api.post<Rollout>(`${path}/rollback`, undefined, { tenantId }),
                          (answer) => toast('success', t('rollouts.rolledBack', { version: answer.candidate_version, base: answer.base_version })),
                        ),
                      )
                    }
                    data-testid="rollout-rollback"
                  >
                    {t('rollouts.rollback', { version: rollout.candidate_version })}
                  </Button>
                </Group>
              </>
            )}
          </Stack>
        </Paper>
      )}
      {rollout && <RolloutResults planId={planId} tenantId={tenantId} rolloutId={rollout.id} />}
    </Stack>
  );
}
