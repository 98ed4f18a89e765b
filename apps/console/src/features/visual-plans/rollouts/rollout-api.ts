import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api/client.ts';

/*
 * The rollout API of issue 41 (docs/rollouts.md). These shapes are the binding contract the server
 * answers; they move to @voxplan/contracts' schemas once the server's routes land there.
 */
export interface AutoRollback {
  goal_worse: boolean;
  /** Percent of sessions ending in an engine error or a failed hand-off; null: no such rule. */
  max_failure_rate: number | null;
}

export interface RolloutSettings {
  share: number;
  pinned: string[];
  auto_rollback?: AutoRollback | null;
}

export interface Rollout {
  id: number;
  tenant_id: number;
  plan_id: number;
  base_version: number;
  candidate_version: number;
  share: number;
  pinned: string[];
  auto_rollback: AutoRollback | null;
  state: 'running' | 'promoted' | 'rolled_back';
  ended_reason: 'promoted' | 'rolled_back' | 'auto_rollback' | null;
  ended_note: string | null;
  started_time: string;
  started_by: number | null;
  ended_time: string | null;
  ended_by: number | null;
}

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
