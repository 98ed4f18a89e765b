import type { Tenant } from '@voxplan/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from './api/client.ts';
import { useAuth } from './auth.tsx';

/**
 * Every tenant by name, for an administrator (the only role that sees more than one): the tenant
 * picker, the tenant a new record goes to and the tenant column of lists on all tenants share it.
 * Keyed under '/tenants', so creating or renaming a tenant refreshes it.
 */
export function useTenants() {
  const { role } = useAuth();
  return useQuery({
    queryKey: ['/tenants', 'all-by-name'],
    queryFn: ({ signal }) => api.get<Tenant[]>('/tenants', { query: { filter: { order: ['name ASC'], limit: 1000 } }, signal }),
    enabled: role === 'admin',
    staleTime: 30_000,
  });
}

/** Whether the console shows every tenant's records: an administrator on "All tenants" (id 0). */
export function useAllTenants(): boolean {
  const { role, tenantId } = useAuth();
  return role === 'admin' && tenantId === 0;
}
