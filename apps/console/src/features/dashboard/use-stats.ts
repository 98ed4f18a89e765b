import { keepPreviousData, useIsFetching, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type QueryValue } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';

/** Every dashboard query's key starts with this, so that one refresh asks them all again. */
const statsKey = 'dashboard-stats';

/**
 * A `/stats/...` answer for the working tenant, asked again every `refreshSeconds` (0: only on
 * demand); the previous answer stays on screen while a new period loads.
 */
export function useStats<T>(path: string, query: Record<string, QueryValue> | undefined, refreshSeconds: number, enabled = true) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [statsKey, tenantId, path, query],
    queryFn: ({ signal }) => api.get<T>(path, { query, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: refreshSeconds > 0 ? refreshSeconds * 1000 : false,
    enabled,
  });
}

/** Asks every dashboard query again now; `fetching` while any is under way. */
export function useStatsRefresh(): { refresh(): void; fetching: boolean } {
  const client = useQueryClient();
  const fetching = useIsFetching({ queryKey: [statsKey] }) > 0;
  return { refresh: () => void client.refetchQueries({ queryKey: [statsKey], type: 'active' }), fetching };
}
