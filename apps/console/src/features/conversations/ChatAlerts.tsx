import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { chime, notifyIfHidden, useChatSound } from './alerts.ts';
import { callerOf } from './model.ts';
import { useConversationEvents } from './feed-context.tsx';
import { usePresence } from './use-conversations.ts';
import { useChatsWanting } from './use-summary.ts';

/**
 * What tells an agent of a new chat on every page of the console (issue 36): the tab's title
 * counts the chats waiting or unread ("(2) Voxplan"); a chat starting to wait chimes while the
 * agent is online and the sound is on, and shows a browser notification while the tab is hidden.
 * Renders nothing; mounted once by the layout, inside the conversations' feed.
 */
export function ChatAlerts() {
  const { t } = useTranslation();
  const count = useChatsWanting();
  const [soundOn] = useChatSound();
  const { status } = usePresence();
  const name = t('app.name');

  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${name}` : name;
  }, [count, name]);
  useEffect(() => () => void (document.title = name), [name]);

  const queryClient = useQueryClient();
  const feed = useConversationEvents((event) => {
    if (event.type !== 'conversation.waiting') return;
    if (soundOn && status === 'online') chime();
    notifyIfHidden(t('conversations.newChat'), `${callerOf(event.conversation, t('conversations.unknownCaller'))} · ${event.conversation.queue?.name ?? ''}`);
  });
  // The stream opening is what makes the agent online: their presence is read again then.
  useEffect(() => {
    if (feed === 'live') void queryClient.invalidateQueries({ queryKey: ['/agents/me'] });
  }, [feed, queryClient]);
  return null;
}
