import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LicenseInfo } from '@voxplan/contracts';
import { api } from '../../lib/api/client.ts';

const LICENSE = '/license';
const LICENSE_KEY = [LICENSE];

/** The licence as the server sees it now (GET /license). */
export function useLicense() {
  return useQuery({ queryKey: LICENSE_KEY, queryFn: ({ signal }) => api.get<LicenseInfo>(LICENSE, { signal }) });
}

/**
 * The licence's changes. Each answers with the whole info, which replaces the shown one; a refusal
 * (a sync that failed, say) may still have changed what is stored, so the info is asked again.
 */
export function useLicenseActions() {
  const queryClient = useQueryClient();
  const options = {
    onSuccess: (info: LicenseInfo) => queryClient.setQueryData(LICENSE_KEY, info),
    onError: () => void queryClient.invalidateQueries({ queryKey: LICENSE_KEY }),
  };
  return {
    activate: useMutation({ mutationFn: (license: string) => api.post<LicenseInfo>(LICENSE, { license }), ...options }),
    refresh: useMutation({ mutationFn: () => api.post<LicenseInfo>(`${LICENSE}/refresh`), ...options }),
    sync: useMutation({ mutationFn: () => api.post<LicenseInfo>(`${LICENSE}/sync`), ...options }),
    remove: useMutation({ mutationFn: () => api.delete<LicenseInfo>(LICENSE), ...options }),
  };
}
