import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { useAuth } from '../auth.tsx';

export interface ListFilter {
  where?: Record<string, unknown>;
  order?: string[];
  limit?: number;
  skip?: number;
}

/** Lists are cached per resource, tenant and filter; a newer filter aborts the older request. */
export function useResourceList<Row>(resource: string, filter: ListFilter, refetchInterval?: number) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [resource, tenantId, 'list', filter],
    queryFn: ({ signal }) => api.get<Row[]>(resource, { query: { filter }, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: refetchInterval && refetchInterval > 0 ? refetchInterval * 1000 : false,
  });
}

export function useResourceCount(resource: string, where: Record<string, unknown> | undefined, refetchInterval?: number) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [resource, tenantId, 'count', where],
    queryFn: ({ signal }) => api.get<{ count: number }>(`${resource}/count`, { query: { where }, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: refetchInterval && refetchInterval > 0 ? refetchInterval * 1000 : false,
  });
}

/**
 * Create, update and remove calls that refresh every cached list of the resource when done.
 * `createIn` names the tenant a new record goes to when it is not the working one (useTenantChoice).
 */
export function useResourceMutations<Row, Input = Partial<Row>>(resource: string, { createIn }: { createIn?: number } = {}) {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: [resource] });
  return {
    create: useMutation({ mutationFn: (input: Input) => api.post<Row>(resource, input, { tenantId: createIn }), onSuccess: invalidate }),
    update: useMutation({
      mutationFn: ({ id, input }: { id: number; input: Input }) => api.patch<Row>(`${resource}/${id}`, input),
      onSuccess: invalidate,
    }),
    remove: useMutation({ mutationFn: (id: number) => api.delete<void>(`${resource}/${id}`), onSuccess: invalidate }),
    removeMany: useMutation({ mutationFn: (ids: number[]) => api.delete<{ count: number }>(resource, ids), onSuccess: invalidate }),
    invalidate,
  };
}
