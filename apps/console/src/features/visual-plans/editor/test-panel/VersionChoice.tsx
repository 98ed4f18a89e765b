import { Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import { useTranslation } from 'react-i18next';
import { api } from '../../../../lib/api/client.ts';
import { useEditorContext } from '../editor-context.tsx';
import type { SimulatorVersion } from './simulator-state.ts';

/**
 * Which version the test panel runs: the draft, the one calls run now, or any published version
 * by its number (a rollout's candidate before it meets callers, an older one to compare with).
 * The versions are asked for when the list opens, as the export menu does. The canvas keeps
 * showing the draft whichever runs, so a version other than the draft says so under the choice.
 */
export function VersionChoice({ value, onChange, disabled }: { value: SimulatorVersion; onChange(version: SimulatorVersion): void; disabled: boolean }) {
  const { t } = useTranslation();
  const { planId, tenantId } = useEditorContext();
  const versions = useQuery({
    queryKey: ['/visual-plans', 'versions', planId],
    queryFn: ({ signal }) => api.get<VisualPlanVersion[]>(`/visual-plans/${planId}/versions`, { signal, tenantId }),
  });
  const data = [
    { value: 'draft', label: t('testPanel.draft') },
    { value: 'published', label: t('testPanel.published') },
    ...(versions.data ?? []).map((version) => ({ value: String(version.version), label: t('testPanel.versionNumber', { version: version.version }) })),
  ];
  return (
    <Select
      label={t('testPanel.version')}
      description={value === 'draft' ? undefined : <span data-testid="test-panel-version-note">{t('testPanel.versionCanvasNote')}</span>}
      disabled={disabled}
      value={String(value)}
      allowDeselect={false}
      data={data}
      onChange={(chosen) => chosen !== null && onChange(chosen === 'draft' || chosen === 'published' ? chosen : Number(chosen))}
      data-testid="test-panel-version"
      comboboxProps={{ withinPortal: true }}
    />
  );
}
