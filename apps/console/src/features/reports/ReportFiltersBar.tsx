import { Badge, Button, Group, MultiSelect, Paper, SimpleGrid, Switch, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconX } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { type Dispatch, type SetStateAction, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { useAgentOptions } from '../destinations/AgentsField.tsx';
import { activeFilterCount, noReportFilters, type ReportFilters } from './report-filter.ts';
import { type ReportList, reportOptions } from './report-values.ts';

/** The plans reports may name: the working tenant's (every tenant's on all tenants), by name. */
function usePlanOptions() {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: ['/visual-plans', tenantId, 'report-filter'],
    queryFn: ({ signal }) =>
      api.get<{ id: number; name: string }[]>('/visual-plans', { query: { filter: { fields: ['id', 'name'], order: ['name ASC'], limit: 1000 } }, signal }),
    staleTime: 30_000,
    select: (plans) => plans.map((plan) => ({ value: String(plan.id), label: plan.name })),
  });
}

/** The chat queues reports may name (a chat's last hand-off reached one), by name. */
function useQueueOptions() {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: ['/destinations', tenantId, 'report-filter'],
    queryFn: ({ signal }) =>
      api.get<{ id: number; name: string }[]>('/destinations', { query: { filter: { where: { kind: 'chat' }, order: ['name ASC'], limit: 1000 } }, signal }),
    staleTime: 30_000,
    select: (queues) => queues.map((queue) => ({ value: String(queue.id), label: queue.name })),
  });
}

/** The campaigns reports may name (an outbound call a campaign placed), by name. */
function useCampaignOptions() {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: ['/campaigns', tenantId, 'report-filter'],
    queryFn: ({ signal }) =>
      api.get<{ id: number; name: string }[]>('/campaigns', { query: { filter: { fields: ['id', 'name'], order: ['name ASC'], limit: 1000 } }, signal }),
    staleTime: 30_000,
    select: (campaigns) => campaigns.map((campaign) => ({ value: String(campaign.id), label: campaign.name })),
  });
}

/**
 * The reports screen's own filters, applied as they change (typed numbers after a pause): the
 * period, plan, numbers, the value lists, a chat's agent and queue, the campaign, and the test sessions switch.
 */
export function ReportFiltersBar({ filters, onChange }: { filters: ReportFilters; onChange: Dispatch<SetStateAction<ReportFilters>> }) {
  const { t } = useTranslation();
  const plans = usePlanOptions();
  const queues = useQueueOptions();
  const campaigns = useCampaignOptions();
  const agents = useAgentOptions(undefined);
  // Typed text shows at once and filters after a pause, so each key does not ask the server.
  const [typed, setTyped] = useState({ called: filters.called, caller: filters.caller });
  // Applied to the filters as they are then: another filter changed during the pause is kept.
  const applyTyped = useDebouncedCallback((next: typeof typed) => onChange((current) => ({ ...current, ...next })), 350);
  const type = (field: keyof typeof typed, value: string) => {
    const next = { ...typed, [field]: value };
    setTyped(next);
    applyTyped(next);
  };
  const list = (list: ReportList, field: 'directions' | 'dialStatuses' | 'dispositions' | 'hangupCauses', labelKey: string) => (
    <MultiSelect
      label={t(labelKey)}
      data={reportOptions[list].map((option) => ({ value: option.value, label: t(option.labelKey) }))}
      value={filters[field]}
      onChange={(values) => onChange({ ...filters, [field]: values })}
      clearable
      data-testid={`reports-filter-${list}`}
    />
  );
  const active = activeFilterCount(filters);

  return (
    <Paper withBorder p="sm" data-testid="reports-filters">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm" verticalSpacing="xs">
        <TextInput type="date" label={t('reports.filters.from')} value={filters.from} max={filters.to || undefined} onChange={(event) => onChange({ ...filters, from: event.currentTarget.value })} data-testid="reports-filter-from" />
        <TextInput type="date" label={t('reports.filters.to')} value={filters.to} min={filters.from || undefined} onChange={(event) => onChange({ ...filters, to: event.currentTarget.value })} data-testid="reports-filter-to" />
        <MultiSelect
          label={t('reports.filters.plan')}
          data={plans.data ?? []}
          value={filters.planIds}
          onChange={(planIds) => onChange({ ...filters, planIds })}
          searchable
          clearable
          data-testid="reports-filter-plan"
        />
        <TextInput label={t('reports.filters.called')} value={typed.called} onChange={(event) => type('called', event.currentTarget.value)} data-testid="reports-filter-called" />
        <TextInput label={t('reports.filters.caller')} value={typed.caller} onChange={(event) => type('caller', event.currentTarget.value)} data-testid="reports-filter-caller" />
        {list('direction', 'directions', 'reports.fields.direction')}
        {list('dialStatus', 'dialStatuses', 'reports.fields.dialStatus')}
        {list('disposition', 'dispositions', 'reports.fields.disposition')}
        {list('hangupCause', 'hangupCauses', 'reports.fields.hangupCause')}
        <MultiSelect
          label={t('reports.fields.agent')}
          data={agents.data}
          renderOption={agents.renderOption}
          value={filters.agentIds}
          onChange={(agentIds) => onChange({ ...filters, agentIds })}
          searchable
          clearable
          data-testid="reports-filter-agent"
        />
        <MultiSelect
          label={t('reports.fields.queue')}
          data={queues.data ?? []}
          value={filters.queueIds}
          onChange={(queueIds) => onChange({ ...filters, queueIds })}
          searchable
          clearable
          data-testid="reports-filter-queue"
        />
        <MultiSelect
          label={t('reports.fields.campaign')}
          data={campaigns.data ?? []}
          value={filters.campaignIds}
          onChange={(campaignIds) => onChange({ ...filters, campaignIds })}
          searchable
          clearable
          data-testid="reports-filter-campaign"
        />
      </SimpleGrid>
      <Group justify="space-between" mt="sm">
        <Switch label={t('reports.filters.showTest')} checked={filters.showTest} onChange={(event) => onChange({ ...filters, showTest: event.currentTarget.checked })} data-testid="reports-filter-test" />
        <Button
          variant="subtle"
          leftSection={<IconX size={16} />}
          disabled={active === 0}
          rightSection={active > 0 ? <Badge size="xs" circle>{active}</Badge> : null}
          onClick={() => {
            applyTyped.cancel();
            setTyped({ called: '', caller: '' });
            onChange(noReportFilters);
          }}
          data-testid="reports-filters-clear"
        >
          {t('reports.filters.clear')}
        </Button>
      </Group>
    </Paper>
  );
}
