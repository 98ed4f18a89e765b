import { useQueryClient } from '@tanstack/react-query';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { keepFollowing, type LiveStatus, watchedConnection } from '../dashboard/live-feed.ts';
import { type ConversationEvent, type ConversationEventType, conversationEventTypes } from './model.ts';

export const CONVERSATIONS_KEY = '/conversations';

/**
 * Reads `/conversations/events` once, until it ends, fails or stays silent too long (the server
 * pings every 15 s). `onOpen` runs once the server has answered: what happened while no stream was
 * open is read again then.
 */
async function readOnce(onOpen: () => void, onEvent: (event: ConversationEvent) => void, stop: AbortSignal): Promise<void> {
  const { connection, heard, dispose } = watchedConnection(stop);
  try {
    const response = await api.stream('/conversations/events', { signal: connection.signal });
    if (!response.body) throw new Error('no event stream');
    heard();
    onOpen();
    const messages = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream({ onComment: heard }))
      .getReader();
    connection.signal.addEventListener('abort', () => void messages.cancel().catch(() => undefined));
    for (;;) {
      const { value: message, done } = await messages.read();
      if (done) break;
      heard();
      if (!message.event || !(conversationEventTypes as readonly string[]).includes(message.event)) continue;
      onEvent({ ...(JSON.parse(message.data) as object), type: message.event as ConversationEventType } as ConversationEvent);
    }
  } finally {
    dispose();
  }
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
