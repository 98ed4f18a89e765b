import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import type { ConversationSummary } from './model.ts';

/** Waiting chats, unread messages and each queue's figures: the menu's count and the dashboard's table. */
export const SUMMARY_KEY = ['/conversations', 'summary'] as const;

/**
 * The summary, asked again every `refreshSeconds` (the menu's count away from the screen) and at
 * once whenever the console's conversations stream hears an event (it invalidates every `/conversations` key).
 */
export function useConversationSummary(refreshSeconds = 30) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [...SUMMARY_KEY, tenantId],
    queryFn: ({ signal }) => api.get<ConversationSummary>('/conversations/summary', { signal }),
    refetchInterval: refreshSeconds * 1000,
    // A server without the screen's routes (or a refused role) leaves the menu without a count.
    retry: false,
  });
}

/** The chats that want someone: waiting in the person's queues, or with messages unread in their own (the menu's, the burger's and the title's count). */
export function useChatsWanting(): number {
  const { data } = useConversationSummary();
  return (data?.waiting ?? 0) + (data?.unread ?? 0);
}
