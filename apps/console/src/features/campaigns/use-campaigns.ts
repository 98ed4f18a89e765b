import { useQuery } from '@tanstack/react-query';
import type { Campaign, CampaignProgress } from '@voxplan/contracts';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { CAMPAIGNS } from './paths.ts';

/**
 * How often a campaign's figures are asked again while calls may be going out: often enough to
 * watch them move, a page at a time (docs/campaigns.md, "Progress"). A campaign at rest is asked
 * once, and again after a control.
 */
export const LIVE_PROGRESS_MS = 2_000;

const isMoving = (progress: CampaignProgress | undefined, status: Campaign['status'] | undefined) =>
  status === 'running' || progress?.status === 'running' || (progress?.in_progress ?? 0) > 0;

/** A campaign's figures, live while it runs (or calls it placed are still going on). */
export function useCampaignProgress(campaign: Pick<Campaign, 'id' | 'status'> | undefined) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CAMPAIGNS, tenantId, 'progress', campaign?.id],
    queryFn: ({ signal }) => api.get<CampaignProgress>(`${CAMPAIGNS}/${campaign!.id}/progress`, { signal }),
    enabled: campaign !== undefined,
    refetchInterval: (query) => (isMoving(query.state.data, campaign?.status) ? LIVE_PROGRESS_MS : false),
  });
}

/** One campaign, live while it runs: its status changes by itself when its last contact is done. */
export function useCampaign(id: number) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CAMPAIGNS, tenantId, 'one', id],
    queryFn: ({ signal }) => api.get<Campaign>(`${CAMPAIGNS}/${id}`, { signal }),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? LIVE_PROGRESS_MS : false),
  });
}

/** The campaigns calling now or paused, for the dashboard; asked again with its refresh and while any runs. */
export function useActiveCampaigns(refreshSeconds: number) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CAMPAIGNS, tenantId, 'active'],
    queryFn: ({ signal }) =>
      api.get<Campaign[]>(CAMPAIGNS, { query: { filter: { where: { status: { inq: ['running', 'paused'] } }, order: ['name ASC'], limit: 20 } }, signal }),
    refetchInterval: (query) => (query.state.data?.some((campaign) => campaign.status === 'running') ? LIVE_PROGRESS_MS : refreshSeconds > 0 ? refreshSeconds * 1000 : false),
  });
}
