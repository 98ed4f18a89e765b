import { Badge, Center, Group, Loader, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatDuration } from '../../lib/format.ts';
import { PageError } from '../../lib/PageError.tsx';
import { callerOf, type ConversationRow, type ConversationStatus } from './model.ts';
import { useConversationList } from './use-conversations.ts';
import classes from './conversations.module.css';
import { systemText } from './Transcript.tsx';

function RowLine({ row, now, selected, onOpen }: { row: ConversationRow; now: number; selected: boolean; onOpen(): void }) {
  const { t, i18n } = useTranslation();
  const when =
    row.status === 'waiting'
      ? t('conversations.waitingFor', { time: formatDuration(now - Date.parse(row.waiting_since)) })
      : formatDateTime(row.status === 'closed' ? row.closed_at : (row.last_message?.created_at ?? row.taken_at), i18n.language);
  return (
    <UnstyledButton className={classes.row} data-selected={selected || undefined} aria-current={selected || undefined} onClick={onOpen} data-testid="conversation-row">
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text fw={600} size="sm" truncate>
          {callerOf(row, t('conversations.unknownCaller'))}
        </Text>
        {row.unread > 0 && (
          <Badge size="sm" circle aria-label={t('conversations.unread', { count: row.unread })}>
            {row.unread}
          </Badge>
        )}
      </Group>
      <Text size="xs" c="dimmed" truncate>
        {row.queue?.name ?? '—'} · {t(`reports.provider.${row.provider}`, { defaultValue: row.provider })}
        {row.agent && row.status !== 'waiting' ? ` · ${row.agent.name}` : ''}
      </Text>
      {row.last_message && (
        <Text size="xs" truncate>
          {row.last_message.author === 'system' ? systemText(row.last_message.text, t) : row.last_message.text}
        </Text>
      )}
      <Text size="xs" c="dimmed">
        {when}
        {row.outcome ? ` · ${t(`conversations.outcome.${row.outcome}`)}` : ''}
      </Text>
    </UnstyledButton>
  );
}

/** One tab's chats: the waiting ones longest first (as the server sorts them), the agent's open ones, or the closed ones found by `q`. */
export function ConversationList({
  status,
  q,
  onSearch,
  selectedId,
  onOpen,
  now,
}: {
  status: ConversationStatus;
  q: string;
  onSearch(q: string): void;
  selectedId: string | undefined;
  onOpen(row: ConversationRow): void;
  now: number;
}) {
  const { t } = useTranslation();
  const list = useConversationList(status, q);
  return (
    <Stack gap="xs">
      {status === 'closed' && (
        <TextInput
          aria-label={t('conversations.search')}
          placeholder={t('conversations.search')}
          leftSection={<IconSearch size={16} />}
          value={q}
          onChange={(event) => onSearch(event.currentTarget.value)}
          data-testid="conversation-search"
        />
      )}
      {list.isError && <PageError error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && (
        <Center h={80}>
          <Loader size="sm" aria-label={t('common.loading')} />
        </Center>
      )}
      {list.data?.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="conversation-empty">
          {t(`conversations.empty.${status}`)}
        </Text>
      )}
      <Stack gap={4} component="ul" className={classes.list} aria-label={t(`conversations.tabs.${status}`)}>
        {list.data?.map((row) => (
          <li key={row.id}>
            <RowLine row={row} now={now} selected={String(row.id) === selectedId} onOpen={() => onOpen(row)} />
          </li>
        ))}
      </Stack>
    </Stack>
  );
}
