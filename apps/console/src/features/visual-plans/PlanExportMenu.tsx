import { ActionIcon, Loader, Menu, Tooltip } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlan, VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { downloadAttachment } from '../../lib/api/download.ts';
import { showError } from '../../lib/errors.ts';
import { formatDateTime } from '../../lib/format.ts';
import { PLANS } from './plans-api.ts';

/**
 * A row's export: the draft or one of the published versions (asked for when the menu opens),
 * saved as the file the server names. Guests may export too: it writes nothing.
 */
export function PlanExportMenu({ plan }: { plan: VisualPlan }) {
  const { t, i18n } = useTranslation();
  const [opened, setOpened] = useState(false);
  const versions = useQuery({
    queryKey: [PLANS, plan.id, 'versions', plan.published_version],
    queryFn: ({ signal }) => api.get<VisualPlanVersion[]>(`${PLANS}/${plan.id}/versions`, { signal }),
    enabled: opened && plan.published_version !== null,
  });
  const label = t('plans.export');
  const exportVersion = (version?: number) =>
    void downloadAttachment(`${PLANS}/${plan.id}/export`, `${plan.name}.json`, { query: { version } }).catch((error: unknown) => showError(error, t));

  return (
    <Menu opened={opened} onChange={setOpened} position="bottom-end" withinPortal>
      <Menu.Target>
        <Tooltip label={label}>
          <ActionIcon variant="subtle" aria-label={label} data-testid="plan-export">
            <IconDownload size={16} />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown data-testid="plan-export-menu">
        <Menu.Item onClick={() => exportVersion()} data-testid="plan-export-draft">
          {t('plans.exportDraft', { version: plan.version })}
        </Menu.Item>
        {plan.published_version !== null && (
          <>
            <Menu.Label>{t('plans.publishedVersions')}</Menu.Label>
            {versions.isPending && (
              <Menu.Item disabled leftSection={<Loader size={12} />}>
                {t('common.loading')}
              </Menu.Item>
            )}
            {versions.data?.map((version) => (
              <Menu.Item key={version.id} onClick={() => exportVersion(version.version)} data-testid={`plan-export-version-${version.version}`}>
                {t('plans.exportVersion', { version: version.version, time: formatDateTime(version.published_time, i18n.language) })}
              </Menu.Item>
            ))}
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
