import { Select } from '@mantine/core';
import type { Tenant } from '@voxplan/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';

/** Admins pick the tenant they work in; 0 means all tenants (spec section 4). */
export function TenantPicker() {
  const { t } = useTranslation();
  const { role, tenantId, setTenantId } = useAuth();
  const tenants = useQuery({
    queryKey: ['/tenants', 'picker'],
    queryFn: ({ signal }) => api.get<Tenant[]>('/tenants', { query: { filter: { order: ['name ASC'], limit: 1000 } }, signal }),
    enabled: role === 'admin',
  });
  if (role !== 'admin') return null;
  const data = [{ value: '0', label: t('tenants.all') }, ...(tenants.data ?? []).map((tenant) => ({ value: String(tenant.id), label: tenant.name }))];
  return (
    <Select
      aria-label={t('tenants.selected')}
      data-testid="tenant-picker"
      data={data}
      value={String(tenantId)}
      onChange={(value) => setTenantId(Number(value ?? 0))}
      searchable
      allowDeselect={false}
      w={200}
      size="sm"
    />
  );
}
