import type { SavedReply } from '@voxplan/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';

export type { SavedReply };
const KEY = '/saved-replies';

/** The tenant's saved replies, by name (the `/` picker and their dialog). */
export function useSavedReplies(enabled = true) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [KEY, tenantId],
    queryFn: ({ signal }) => api.get<SavedReply[]>(KEY, { signal, query: { filter: JSON.stringify({ order: ['name ASC'], limit: 1000 }) } }),
    enabled: enabled && tenantId !== 0,
    staleTime: 60_000,
  });
}

/** Adds, changes and removes one; each reads the list again. */
export function useSavedReplyActions() {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [KEY] });
  return {
    save: useMutation({
      mutationFn: ({ id, name, text }: { id?: number; name: string; text: string }) =>
        id === undefined ? api.post<SavedReply>(KEY, { name, text }) : api.patch<SavedReply>(`${KEY}/${id}`, { name, text }),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: number) => api.delete<void>(`${KEY}/${id}`), onSuccess: refresh }),
  };
}
