import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth.tsx';
import { mayLeave } from '../../lib/leave-guard.ts';
import { useTenants } from '../../lib/tenants.ts';

/** Admins pick the tenant they work in; 0 means all tenants (spec section 4). */
export function TenantPicker({ fullWidth = false }: { fullWidth?: boolean }) {
  const { t } = useTranslation();
  const { role, tenantId, setTenantId } = useAuth();
  const tenants = useTenants();
  if (role !== 'admin') return null;
  const data = [{ value: '0', label: t('tenants.all') }, ...(tenants.data ?? []).map((tenant) => ({ value: String(tenant.id), label: tenant.name }))];
  return (
    <Select
      aria-label={t('tenants.selected')}
      data-testid="tenant-picker"
      data={data}
      value={String(tenantId)}
      onChange={(value) => {
        // A screen with work of the tenant open (a plan) closes it first, offering to save.
        void mayLeave('tenant').then((leave) => {
          if (leave) setTenantId(Number(value ?? 0));
        });
      }}
      searchable
      allowDeselect={false}
      w={fullWidth ? '100%' : 200}
      size="sm"
    />
  );
}
