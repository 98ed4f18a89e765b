import { Badge } from '@mantine/core';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useConversationSummary } from '../../features/conversations/use-summary.ts';

/** The chats that want someone: waiting in the person's queues, or unread in their own. */
function ConversationsCount() {
  const { t } = useTranslation();
  const { data } = useConversationSummary();
  const count = (data?.waiting ?? 0) + (data?.unread ?? 0);
  if (count === 0) return null;
  return (
    <Badge size="sm" circle={count < 10} aria-label={t('nav.conversationsCount', { count })} data-testid="menu-conversations-count">
      {count}
    </Badge>
  );
}

/** A count beside a menu entry, by the area's icon name. */
export const menuCounts: Partial<Record<string, ComponentType>> = { conversations: ConversationsCount };
