import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { LiveStatus } from '../dashboard/live-feed.ts';
import type { ConversationEvent } from './model.ts';
import { useConversationFeed } from './use-conversation-feed.ts';

type Listener = (event: ConversationEvent) => void;

interface FeedContext {
  status: LiveStatus;
  listen(listener: Listener): () => void;
}

const Feed = createContext<FeedContext>({ status: 'connecting', listen: () => () => undefined });

/** The one stream of the console: opened by the provider only where the person may see conversations. */
function FeedRunner({ onStatus, dispatch }: { onStatus(status: LiveStatus): void; dispatch: Listener }) {
  const status = useConversationFeed(dispatch);
  useEffect(() => onStatus(status), [status, onStatus]);
  return null;
}

/**
 * Keeps the conversations' event stream open while any page of the console is (docs/conversations.md:
 * an open stream is what keeps the agent online), not only the Conversations screen; the menu's
 * count follows it live, and the screen listens to it rather than opening a stream of its own.
 */
export function ConversationFeedProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const listeners = useRef(new Set<Listener>());
  const dispatch = useCallback((event: ConversationEvent) => {
    for (const listener of listeners.current) listener(event);
  }, []);
  const listen = useCallback((listener: Listener) => {
    listeners.current.add(listener);
    return () => void listeners.current.delete(listener);
  }, []);
  return (
    <Feed.Provider value={{ status, listen }}>
      {enabled && <FeedRunner onStatus={setStatus} dispatch={dispatch} />}
      {children}
    </Feed.Provider>
  );
}

/** The stream's events, each given to `onEvent` (the latest one passed), and its status. */
export function useConversationEvents(onEvent: Listener): LiveStatus {
  const { status, listen } = useContext(Feed);
  const latest = useRef(onEvent);
  latest.current = onEvent;
  useEffect(() => listen((event) => latest.current(event)), [listen]);
  return status;
}
