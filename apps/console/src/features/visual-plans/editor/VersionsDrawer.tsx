import { Button, Drawer, Group, Stack, Table, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { useCanWrite } from '../../../lib/auth.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useEditorContext } from './editor-context.tsx';
import type { PlanSaving } from './use-plan-saving.tsx';
import { VersionViewer } from './VersionViewer.tsx';

/** The published versions, newest first: look at one on a read-only canvas, or make it the draft again. */
export function VersionsDrawer({ opened, onClose, saving, dirty }: { opened: boolean; onClose(): void; saving: PlanSaving; dirty: boolean }) {
  const { t, i18n } = useTranslation();
  const { planId, tenantId } = useEditorContext();
  const canWrite = useCanWrite();
  const [viewing, setViewing] = useState<number | null>(null);
  const versions = useQuery({
    queryKey: ['/visual-plans', 'versions', planId],
    queryFn: ({ signal }) => api.get<VisualPlanVersion[]>(`/visual-plans/${planId}/versions`, { signal, tenantId }),
    enabled: opened,
  });

  const restore = (version: number) =>
    modals.openConfirmModal({
      title: t('editor.versions.restoreTitle', { version }),
      children: <Text size="sm">{t(dirty ? 'editor.versions.restoreDirty' : 'editor.versions.restoreMessage', { version })}</Text>,
      labels: { confirm: t('editor.versions.restore'), cancel: t('common.cancel') },
      confirmProps: { 'data-testid': 'confirm-restore' } as Record<string, string>,
      onConfirm: () => {
        onClose();
        void saving.restore(version);
      },
    });

  return (
    <>
      <Drawer opened={opened} onClose={onClose} position="right" size="lg" title={t('editor.versions.title')} data-testid="versions-drawer">
        <Stack>
          <Text size="sm" c="dimmed">
            {t('editor.versions.hint', { version: saving.baseVersion })}
          </Text>
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
                    </Table.Td>
                    <Table.Td>{formatDateTime(version.published_time, i18n.language)}</Table.Td>
                    <Table.Td>
                      <Group gap={4} justify="flex-end" wrap="nowrap">
                        <Button size="compact-sm" variant="subtle" onClick={() => setViewing(version.version)} data-testid="version-view">
                          {t('editor.versions.view')}
                        </Button>
                        {canWrite && (
                          <Button size="compact-sm" variant="subtle" onClick={() => restore(version.version)} data-testid="version-restore">
                            {t('editor.versions.restore')}
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Drawer>
      {viewing !== null && <VersionViewer version={viewing} onClose={() => setViewing(null)} />}
    </>
  );
}
