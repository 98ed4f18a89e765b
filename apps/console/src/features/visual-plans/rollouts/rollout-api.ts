import { useQuery } from '@tanstack/react-query';
import type { Rollout, RolloutResults, RolloutStart, VersionResult } from '@voxplan/contracts';
import { api } from '../../../lib/api/client.ts';

export type { Rollout, RolloutResults, VersionResult };
/** What publishing to a share sends (`POST …/publish`'s `rollout`). */
export type RolloutSettings = RolloutStart;

export const rolloutKey = (planId: number) => ['/visual-plans', 'rollout', planId] as const;

/** The plan's running rollout, or null. */
export function useRunningRollout(planId: number, tenantId: number | undefined) {
  return useQuery({
    queryKey: rolloutKey(planId),
    queryFn: async ({ signal }) => (await api.get<{ rollout: Rollout | null }>(`/visual-plans/${planId}/rollout`, { signal, tenantId })).rollout,
  });
}

/** The plan's rollouts, newest first: the last one ended tells why (an automatic rollback's note). */
export function useRolloutHistory(planId: number, tenantId: number) {
  return useQuery({
    queryKey: [...rolloutKey(planId), 'history'],
    queryFn: ({ signal }) => api.get<Rollout[]>(`/visual-plans/${planId}/rollouts`, { signal, tenantId }),
  });
}

export function useRolloutResults(planId: number, tenantId: number, rolloutId: number | undefined) {
  return useQuery({
    queryKey: [...rolloutKey(planId), 'results', rolloutId],
    queryFn: ({ signal }) => api.get<RolloutResults>(`/visual-plans/${planId}/rollout/results`, { signal, tenantId, query: { rollout_id: rolloutId } }),
    enabled: rolloutId !== undefined,
  });
}
