import { Button, Drawer, Group, Stack, Table, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlanDraft, VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { useCanWrite } from '../../../lib/auth.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useRunningRollout } from '../rollouts/rollout-api.ts';
import { RolloutPanel } from '../rollouts/RolloutPanel.tsx';
import { useEditorContext } from './editor-context.tsx';
import type { PlanSaving } from './use-plan-saving.tsx';
import { VersionViewer } from './VersionViewer.tsx';

/** A version's or a draft's buttons: look at it, and (for those who may write) make it the draft again. */
function RowActions({ testId, onView, onRestore }: { testId: 'version' | 'draft'; onView(): void; onRestore: (() => void) | undefined }) {
  const { t } = useTranslation();
  return (
    <Table.Td>
      <Group gap={4} justify="flex-end" wrap="nowrap">
        <Button size="compact-sm" variant="subtle" onClick={onView} data-testid={`${testId}-view`}>
          {t('editor.versions.view')}
        </Button>
        {onRestore && (
          <Button size="compact-sm" variant="subtle" onClick={onRestore} data-testid={`${testId}-restore`}>
            {t('editor.versions.restore')}
          </Button>
        )}
      </Group>
    </Table.Td>
  );
}

/** The published versions and the saved drafts, newest first: look at one on a read-only canvas, or make it the draft again. */
export function VersionsDrawer({ opened, onClose, saving, dirty }: { opened: boolean; onClose(): void; saving: PlanSaving; dirty: boolean }) {
  const { t, i18n } = useTranslation();
  const { planId, tenantId } = useEditorContext();
  const canWrite = useCanWrite();
  const [viewing, setViewing] = useState<{ version: number; from: 'versions' | 'drafts' } | null>(null);
  const rollout = useRunningRollout(planId, tenantId).data;
  const versions = useQuery({
    queryKey: ['/visual-plans', 'versions', planId],
    queryFn: ({ signal }) => api.get<VisualPlanVersion[]>(`/visual-plans/${planId}/versions`, { signal, tenantId }),
    enabled: opened,
  });
  const drafts = useQuery({
    queryKey: ['/visual-plans', 'drafts', planId],
    queryFn: ({ signal }) => api.get<VisualPlanDraft[]>(`/visual-plans/${planId}/drafts`, { signal, tenantId }),
    enabled: opened,
  });

  const restore = (version: number, from: 'versions' | 'drafts' = 'versions') =>
    modals.openConfirmModal({
      title: t(from === 'drafts' ? 'editor.versions.restoreDraftTitle' : 'editor.versions.restoreTitle', { version }),
      children: <Text size="sm">{t(dirty ? 'editor.versions.restoreDirty' : from === 'drafts' ? 'editor.versions.restoreDraftMessage' : 'editor.versions.restoreMessage', { version })}</Text>,
      labels: { confirm: t('editor.versions.restore'), cancel: t('common.cancel') },
      confirmProps: { 'data-testid': 'confirm-restore' } as Record<string, string>,
      onConfirm: () => {
        onClose();
        void saving.restore(version, from);
      },
    });

  return (
    <>
      <Drawer opened={opened} onClose={onClose} position="right" size="lg" title={t('editor.versions.title')} data-testid="versions-drawer">
        <Stack>
          <RolloutPanel planId={planId} tenantId={tenantId} publishedVersion={saving.publishedVersion} onPromoted={saving.setPublishedVersion} />
          <Text size="sm" c="dimmed">
            {t('editor.versions.hint', { version: saving.baseVersion })}
          </Text>
          <Title order={3} size="h5">
            {t('editor.versions.published')}
          </Title>
          {versions.data?.length === 0 && <Text>{t('editor.versions.none')}</Text>}
          {(versions.data?.length ?? 0) > 0 && (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('editor.versions.version')}</Table.Th>
                  <Table.Th>{t('editor.versions.publishedTime')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {versions.data?.map((version) => (
                  <Table.Tr key={version.version} data-testid="version-row">
                    <Table.Td>
                      {version.version}
                      {version.version === saving.publishedVersion ? ` · ${t('editor.versions.live')}` : ''}
                      {version.version === rollout?.candidate_version ? ` · ${t('rollouts.percent', { share: rollout.share })}` : ''}
                    </Table.Td>
                    <Table.Td>{formatDateTime(version.published_time, i18n.language)}</Table.Td>
                    <RowActions testId="version" onView={() => setViewing({ version: version.version, from: 'versions' })} onRestore={canWrite ? () => restore(version.version) : undefined} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Title order={3} size="h5">
            {t('editor.versions.drafts')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('editor.versions.draftsHint')}
          </Text>
          {drafts.data?.length === 0 && <Text>{t('editor.versions.draftsNone')}</Text>}
          {(drafts.data?.length ?? 0) > 0 && (
            <Table data-testid="drafts-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('editor.versions.version')}</Table.Th>
                  <Table.Th>{t('editor.versions.savedTime')}</Table.Th>
                  <Table.Th>{t('editor.versions.savedBy')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {drafts.data?.map((draft) => (
                  <Table.Tr key={draft.version} data-testid="draft-row" data-version={draft.version}>
                    <Table.Td>
                      {draft.version}
                      {draft.version === saving.baseVersion ? ` · ${t('editor.versions.current')}` : ''}
                    </Table.Td>
                    <Table.Td>{formatDateTime(draft.saved_time, i18n.language)}</Table.Td>
                    <Table.Td>{draft.saved_by_name ?? '—'}</Table.Td>
                    <RowActions
                      testId="draft"
                      onView={() => setViewing({ version: draft.version, from: 'drafts' })}
                      onRestore={canWrite && draft.version !== saving.baseVersion ? () => restore(draft.version, 'drafts') : undefined}
                    />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Drawer>
      {viewing !== null && <VersionViewer version={viewing.version} from={viewing.from} onClose={() => setViewing(null)} />}
    </>
  );
}
