import { Group, MultiSelect, type MultiSelectProps, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Agent } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth.tsx';
import { api } from '../../lib/api/client.ts';

/**
 * Who may answer a tenant's chats (GET /agents: its users and the administrators), by name, with
 * their presence there; every user of the tenant may read it. Undefined while loading, or for an
 * administrator over every tenant who names none.
 */
export function useAgents(tenantId: number | undefined): Agent[] | undefined {
  const { tenantId: workingTenant } = useAuth();
  const tenant = tenantId ?? (workingTenant || undefined);
  const agents = useQuery({
    queryKey: ['/agents', tenant],
    queryFn: ({ signal }) => api.get<Agent[]>('/agents', { signal, ...(tenant !== undefined && { tenantId: tenant }) }),
    enabled: tenant !== undefined,
  });
  return agents.data;
}

/** The agents as a picker's options, each named, its presence beside the name in the list. */
export function useAgentOptions(tenantId: number | undefined): { data: { value: string; label: string }[]; renderOption: NonNullable<MultiSelectProps['renderOption']> } {
  const { t } = useTranslation();
  const agents = useAgents(tenantId) ?? [];
  const statusOf = new Map(agents.map((agent) => [String(agent.id), agent.status]));
  return {
    data: agents.map((agent) => ({ value: String(agent.id), label: agent.name })),
    renderOption: ({ option }) => (
      <Group justify="space-between" wrap="nowrap" w="100%" gap="xs">
        <span>{option.label}</span>
        <Text span size="xs" c="dimmed">
          {t(`conversations.presence.${statusOf.get(option.value) ?? 'offline'}`)}
        </Text>
      </Group>
    ),
  };
}

/** The agents of a chat queue, chosen by name from those who may answer the tenant's chats. */
export function AgentsField({ tenantId, value, onChange, error }: { tenantId: number | undefined; value: number[]; onChange(value: number[]): void; error?: string }) {
  const { t } = useTranslation();
  const options = useAgentOptions(tenantId);
  return (
    <MultiSelect
      label={t('destinations.agents')}
      description={t('destinations.agentsHint')}
      withAsterisk
      searchable
      {...options}
      value={value.map(String)}
      onChange={(ids) => onChange(ids.map(Number))}
      error={error}
      nothingFoundMessage={t('destinations.noAgents')}
      data-testid="destination-agents"
    />
  );
}
