import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth.tsx';
import { readEventStreamOnce } from '../dashboard/event-stream-once.ts';
import { keepFollowing, type LiveStatus } from '../dashboard/live-feed.ts';
import { type ConversationEvent, type ConversationEventType, conversationEventTypes } from './model.ts';

export const CONVERSATIONS_KEY = '/conversations';

/** `/conversations/events` once (`readEventStreamOnce`): what happened while no stream was open is read again at `onOpen`. */
function readOnce(onOpen: () => void, onEvent: (event: ConversationEvent) => void, stop: AbortSignal): Promise<void> {
  return readEventStreamOnce('/conversations/events', conversationEventTypes, onOpen, (type, data) => onEvent({ ...(data as object), type: type as ConversationEventType } as ConversationEvent), stop);
}

/**
 * Follows the conversations' events while the console is open (an open stream is what makes the
 * agent online: docs/conversations.md), reconnecting as the dashboard's live feed does. Every event
 * but typing, and every reconnection, refreshes the lists and the summary; `onEvent` gets each event
 * too (the chat view's "the customer is typing", the new-chat alert).
 */
export function useConversationFeed(onEvent: (event: ConversationEvent) => void): LiveStatus {
  const { tenantId } = useAuth();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const listener = useRef(onEvent);
  listener.current = onEvent;
  useEffect(() => {
    const stop = new AbortController();
    const refresh = () => void queryClient.invalidateQueries({ queryKey: [CONVERSATIONS_KEY] });
    void keepFollowing(
      () =>
        readOnce(
          () => {
            setStatus('live');
            refresh();
          },
          (event) => {
            // Typing changes no list: only the chat view shows it.
            if (event.type !== 'conversation.typing' && event.type !== 'conversation.customer_typing') refresh();
            listener.current(event);
          },
          stop.signal,
        ),
      setStatus,
      stop.signal,
    );
    return () => stop.abort();
  }, [tenantId, queryClient]);
  return status;
}
