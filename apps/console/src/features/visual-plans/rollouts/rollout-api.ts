import { useQuery } from '@tanstack/react-query';
import type { Rollout, RolloutStart } from '@voxplan/contracts';
import { api } from '../../../lib/api/client.ts';

export type { Rollout };
/** What publishing to a share sends (`POST …/publish`'s `rollout`). */
export type RolloutSettings = RolloutStart;

/*
 * The results of issue 41 §2 (docs/rollouts.md): their schema moves to @voxplan/contracts with the
 * results route; until then these are the shapes the contract names.
 */
export interface VersionResult {
  version: number;
  share: number;
  sessions: number;
  retained: number;
  routed: number;
  abandoned: number;
  converted: number;
  goal_rate: number;
  median_duration_ms: number | null;
  failures: number;
  drop_off: { node_id: string; name: string; entered: number; ended: number }[];
}

export interface RolloutResults {
  rollout: Rollout;
  versions: [VersionResult, VersionResult];
  comparison: { enough_data: boolean; goal_rate_difference: number | null; confidence: number | null };
}

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
