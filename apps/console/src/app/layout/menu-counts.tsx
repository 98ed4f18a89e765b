import { Badge, Burger, Indicator } from '@mantine/core';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useChatsWanting } from '../../features/conversations/use-summary.ts';

/** The chats that want someone: waiting in the person's queues, or unread in their own. */
function ConversationsCount() {
  const { t } = useTranslation();
  const count = useChatsWanting();
  if (count === 0) return null;
  return (
    <Badge size="sm" circle={count < 10} aria-label={t('nav.conversationsCount', { count })} data-testid="menu-conversations-count">
      {count}
    </Badge>
  );
}

/** The burger's badge on a phone: the chats that want someone, whose menu entry is in the closed drawer. */
export function BurgerWithCount({ opened, onClick }: { opened: boolean; onClick(): void }) {
  const { t } = useTranslation();
  const count = useChatsWanting();
  const label = count > 0 ? `${t('layout.menu')}: ${t('nav.conversationsCount', { count })}` : t('layout.menu');
  return (
    <Indicator label={count} size={16} disabled={count === 0} offset={2} data-testid="menu-burger-count">
      <Burger opened={opened} onClick={onClick} size="sm" aria-label={label} data-testid="menu-burger" />
    </Indicator>
  );
}

/** A count beside a menu entry, by the area's icon name. */
export const menuCounts: Partial<Record<string, ComponentType>> = { conversations: ConversationsCount };
