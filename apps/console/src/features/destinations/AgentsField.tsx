import { MultiSelect, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { User } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth.tsx';
import { api } from '../../lib/api/client.ts';

/** A user who may serve the tenant's queue: one of its users, or an administrator (docs/conversations.md). */
const servesTenant = (user: User, tenantId: number | undefined) => user.roles.some((role) => role.role === 'admin' || (role.role !== 'guest' && (tenantId === undefined || role.tenant_id === tenantId)));

/**
 * The users who may serve a tenant's queues, for an administrator (only they may list users);
 * undefined for the others.
 */
export function useServingUsers(tenantId: number | undefined): User[] | undefined {
  const { role, tenantId: workingTenant } = useAuth();
  const admin = role === 'admin';
  const users = useQuery({
    queryKey: ['/users', 'agents'],
    queryFn: ({ signal }) => api.get<User[]>('/users', { signal, query: { filter: { order: ['name ASC'] } } }),
    enabled: admin,
  });
  const tenant = tenantId ?? (workingTenant || undefined);
  return admin ? (users.data ?? []).filter((user) => servesTenant(user, tenant)) : undefined;
}

/**
 * The agents of a chat queue, chosen by name. Only administrators may list users, so the others
 * are told who can change them.
 */
export function AgentsField({ tenantId, value, onChange, error }: { tenantId: number | undefined; value: number[]; onChange(value: number[]): void; error?: string }) {
  const { t } = useTranslation();
  const users = useServingUsers(tenantId);
  if (!users) {
    return (
      <Text size="sm" c="dimmed" data-testid="destination-agents-admin">
        {t('destinations.agentsByAdmin', { count: value.length })}
      </Text>
    );
  }
  return (
    <MultiSelect
      label={t('destinations.agents')}
      description={t('destinations.agentsHint')}
      withAsterisk
      searchable
      data={users.map((user) => ({ value: String(user.id), label: user.name || user.username }))}
      value={value.map(String)}
      onChange={(ids) => onChange(ids.map(Number))}
      error={error}
      nothingFoundMessage={t('destinations.noAgents')}
      data-testid="destination-agents"
    />
  );
}
