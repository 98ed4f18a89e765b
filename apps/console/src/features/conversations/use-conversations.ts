import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import type { CloseOutcome, ConversationDetail, ConversationMessage, ConversationRow, ConversationStatus, MessageAttachment, PresenceStatus } from './model.ts';
import { CONVERSATIONS_KEY } from './use-conversation-feed.ts';

export function useConversationList(status: ConversationStatus, q: string) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CONVERSATIONS_KEY, 'list', tenantId, status, status === 'closed' ? q : ''],
    queryFn: ({ signal }) => api.get<ConversationRow[]>('/conversations', { signal, query: { status, q: status === 'closed' && q ? q : undefined } }),
    placeholderData: (previous) => previous,
  });
}

export function useConversation(id: string | undefined) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CONVERSATIONS_KEY, 'one', tenantId, id],
    queryFn: ({ signal }) => api.get<ConversationDetail>(`/conversations/${id}`, { signal }),
    enabled: id !== undefined,
  });
}

export type TransferTarget = { queue_id: number } | { agent_id: number };

/** Every action on one conversation; each refreshes the lists, the summary and the conversation. */
export function useConversationActions(id: string | number) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [CONVERSATIONS_KEY] });
  const path = `/conversations/${id}`;
  return {
    take: useMutation({ mutationFn: () => api.post<ConversationRow>(`${path}/take`), onSettled: refresh }),
    send: useMutation({
      // A text (with a link), or outside WhatsApp's window a template with its values.
      mutationFn: (body: { text: string; attachment?: MessageAttachment } | { template: { name: string; language: string; values: Record<string, string>; types: Record<string, string> } }) => api.post<ConversationMessage>(`${path}/messages`, body),
      onSuccess: refresh,
    }),
    upload: useMutation({
      mutationFn: ({ file, text }: { file: File; text: string }) => {
        const body = new FormData();
        if (text) body.append('text', text);
        body.append('file', file);
        return api.post<ConversationMessage>(`${path}/attachments`, body);
      },
      onSuccess: refresh,
    }),
    transfer: useMutation({ mutationFn: (target: TransferTarget) => api.post<ConversationRow>(`${path}/transfer`, target), onSettled: refresh }),
    close: useMutation({ mutationFn: (outcome: CloseOutcome) => api.post<ConversationRow>(`${path}/close`, { outcome }), onSettled: refresh }),
    /** A private note: the agents see it, the customer never does. */
    note: useMutation({ mutationFn: (text: string) => api.post<ConversationMessage>(`${path}/notes`, { text }), onSuccess: refresh }),
    read: useMutation({ mutationFn: () => api.post<void>(`${path}/read`), onSuccess: refresh }),
    /** Not awaited nor retried: a lost typing notice only means the customer sees no dots for a moment. */
    typing: () => void api.post<void>(`${path}/typing`).catch(() => undefined),
  };
}

/**
 * The agent's presence in the tenant the console works in. An administrator over every tenant
 * (tenant 0) has none: the server refuses it (docs/conversations.md), so it is not asked.
 */
export function usePresence() {
  const queryClient = useQueryClient();
  const { tenantId } = useAuth();
  const key = ['/agents/me', tenantId];
  const me = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.get<{ status: PresenceStatus }>('/agents/me', { signal }),
    enabled: tenantId !== 0,
  });
  const set = useMutation({
    mutationFn: (status: PresenceStatus) => api.put<{ status: PresenceStatus }>('/agents/me', { status }),
    onSuccess: (answer) => queryClient.setQueryData(key, answer),
  });
  return { status: me.data?.status, set };
}
