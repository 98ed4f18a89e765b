import { ActionIcon, Badge, Button, Grid, Group, Kbd, Modal, Paper, SegmentedControl, Stack, Switch, Table, Tabs, Text, Title, Tooltip, useMantineTheme } from '@mantine/core';
import { type HotkeyItem, useHotkeys, useInterval, useMediaQuery } from '@mantine/hooks';
import { IconBell, IconKeyboard, IconMessage2Bolt } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { useAuth, useCanWrite } from '../../lib/auth.tsx';
import { showError } from '../../lib/errors.ts';
import { useChatSound, useNotificationOffer, useSoundBlocked } from './alerts.ts';
import { ConversationList } from './ConversationList.tsx';
import { ConversationView } from './ConversationView.tsx';
import { SavedRepliesDialog } from './SavedRepliesDialog.tsx';
import { type ConversationEvent, type ConversationRow, type ConversationStatus, conversationStatuses, type PresenceStatus, presenceStatuses } from './model.ts';
import { composerKeys, conversationShortcuts, type ShortcutAction, shortcutLabel, useShortcutHints } from './shortcuts.ts';
import { useConversationEvents } from './feed-context.tsx';
import { CONVERSATIONS_KEY } from './use-conversation-feed.ts';
import { usePresence } from './use-conversations.ts';
import { useConversationSummary } from './use-summary.ts';

/** How long "the customer is typing" stays without a new notice (the widget tells it every 3 s while they type). */
const CUSTOMER_TYPING_SHOWN_MS = 6000;

const tabOfStatus: Record<ConversationStatus, ShortcutAction> = { waiting: 'waiting', open: 'mine', closed: 'closed' };

function PresenceControl({ hints }: { hints: boolean }) {
  const { t } = useTranslation();
  const { status, set } = usePresence();
  const change = (next: PresenceStatus) => set.mutate(next, { onError: (error) => showError(error, t) });
  useHotkeys([[conversationShortcuts.presence, () => status && change(presenceStatuses[(presenceStatuses.indexOf(status) + 1) % presenceStatuses.length]!), { usePhysicalKeys: true }]], []);
  return (
    <Tooltip label={`${t('conversations.presence.label')} (${shortcutLabel('presence')})`} disabled={!hints}>
      <SegmentedControl
        aria-label={t('conversations.presence.label')}
        size="xs"
        // Filled, so the chosen status reads in both schemes (indigo keeps white text at WCAG AA).
        color="indigo"
        value={status ?? 'offline'}
        onChange={(value) => change(value as PresenceStatus)}
        data={presenceStatuses.map((value) => ({ value, label: t(`conversations.presence.${value}`) }))}
        data-testid="agent-presence"
      />
    </Tooltip>
  );
}

/**
 * The new-chat sound (on by default, for an online agent) and, once, the offer of the browser's
 * notifications; says when the browser still holds the sound back (no click in the page yet).
 */
function AlertControls() {
  const { t } = useTranslation();
  const [soundOn, setSoundOn] = useChatSound();
  const blocked = useSoundBlocked();
  const notifications = useNotificationOffer();
  return (
    <Group gap="xs" wrap="wrap">
      <Switch label={t('conversations.sound')} checked={soundOn} onChange={(event) => setSoundOn(event.currentTarget.checked)} data-testid="conversation-sound" />
      {soundOn && blocked && (
        <Text size="xs" c="dimmed" data-testid="conversation-sound-blocked">
          {t('conversations.soundBlocked')}
        </Text>
      )}
      {notifications.offered && (
        <Button variant="subtle" size="compact-sm" leftSection={<IconBell size={16} />} onClick={() => void notifications.ask()} data-testid="conversation-notifications">
          {t('conversations.notificationsOffer')}
        </Button>
      )}
    </Group>
  );
}

function ShortcutsDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const actions = Object.keys(conversationShortcuts) as ShortcutAction[];
  return (
    <Modal opened={opened} onClose={onClose} title={t('conversations.shortcuts')} closeButtonProps={{ 'aria-label': t('common.close') }}>
      <Table aria-label={t('conversations.shortcuts')} data-testid="conversation-shortcuts">
        <Table.Tbody>
          <Table.Tr>
            <Table.Td>{t('conversations.keys.send')}</Table.Td>
            <Table.Td>
              <Kbd>{composerKeys.send}</Kbd>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td>{t('conversations.keys.newLine')}</Table.Td>
            <Table.Td>
              <Kbd>{composerKeys.newLine}</Kbd>
            </Table.Td>
          </Table.Tr>
          {actions.map((action) => (
            <Table.Tr key={action}>
              <Table.Td>{t(`conversations.keys.${action}`)}</Table.Td>
              <Table.Td>
                <Kbd>{shortcutLabel(action)}</Kbd>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}

/**
 * The Conversations screen (issue 30): the chats waiting in the agent's queues, the agent's own,
 * the closed ones; the open one beside the list. Live through the console's one
 * `/conversations/events` stream (feed-context.tsx), which keeps the agent online on every page.
 */
export default function ConversationsPage() {
  const { t } = useTranslation();
  const canWrite = useCanWrite();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { conversationId } = useParams();
  const [tab, setTab] = useState<ConversationStatus>('waiting');
  const [q, setQ] = useState('');
  const [helpOpen, setHelpOpen] = useState(false);
  const [repliesOpen, setRepliesOpen] = useState(false);
  const [now, setNow] = useState(Date.now);
  const { tenantId } = useAuth();
  const hints = useShortcutHints();
  // Below md the list and the chat take turns, so that the chat's message box is on the screen.
  const wide = useMediaQuery(`(min-width: ${useMantineTheme().breakpoints.md})`, true, { getInitialValueInEffect: false });
  const summary = useConversationSummary();
  // The waiting times count up while the screen is open.
  useInterval(() => setNow(Date.now()), 1000, { autoInvoke: true });

  // The chat whose customer is typing, until when (ms): shown in its view while it lasts.
  const [customerTyping, setCustomerTyping] = useState<{ id: number; until: number } | null>(null);
  const status = useConversationEvents((event: ConversationEvent) => {
    if (event.type === 'conversation.customer_typing') setCustomerTyping({ id: event.conversation_id, until: Date.now() + CUSTOMER_TYPING_SHOWN_MS });
    // The customer's message has come: they are no longer typing it.
    if (event.type === 'conversation.message' && event.message.author === 'customer') setCustomerTyping((current) => (current?.id === event.conversation_id ? null : current));
  });

  const open = (row: ConversationRow) => void navigate(`/conversations/${row.id}`);
  const step = (by: number) => {
    const rows = queryClient.getQueriesData<ConversationRow[]>({ queryKey: [CONVERSATIONS_KEY, 'list'] }).find(([key]) => key[3] === tab)?.[1] ?? [];
    if (rows.length === 0) return;
    const index = rows.findIndex((row) => String(row.id) === conversationId);
    open(rows[Math.max(0, Math.min(rows.length - 1, index < 0 ? 0 : index + by))]!);
  };
  const physical = { usePhysicalKeys: true };
  useHotkeys(
    [
      ...conversationStatuses.map((value): HotkeyItem => [conversationShortcuts[tabOfStatus[value]], () => setTab(value), physical]),
      [conversationShortcuts.next, () => step(1), physical],
      [conversationShortcuts.previous, () => step(-1), physical],
    ],
    [],
  );
  useHotkeys([[conversationShortcuts.help, () => setHelpOpen(true)]]);

  const counts: Partial<Record<ConversationStatus, number>> = { waiting: summary.data?.waiting, open: summary.data?.unread };
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm">
          <Title order={2}>{t('nav.conversations')}</Title>
          <Badge variant="dot" color={status === 'live' ? 'green' : 'gray'} data-status={status} data-testid="conversation-feed-status">
            {t(`conversations.feed.${status}`)}
          </Badge>
        </Group>
        <Group gap="sm">
          {/* An administrator over every tenant has no presence (the server refuses it): a tenant is chosen first. */}
          {canWrite && tenantId !== 0 && <PresenceControl hints={hints} />}
          {canWrite && tenantId !== 0 && <AlertControls />}
          {canWrite && tenantId !== 0 && (
            <Button variant="default" size="xs" leftSection={<IconMessage2Bolt size={16} />} onClick={() => setRepliesOpen(true)} data-testid="saved-replies-open">
              {t('conversations.savedReplies.title')}
            </Button>
          )}
          {hints && (
            <Tooltip label={`${t('conversations.shortcuts')} (?)`}>
              <ActionIcon variant="default" size="lg" aria-label={t('conversations.shortcuts')} onClick={() => setHelpOpen(true)} data-testid="conversation-help">
                <IconKeyboard size={18} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </Group>
      <Grid gap="md">
        {(wide || conversationId === undefined) && (
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Paper withBorder p="sm">
              <Tabs value={tab} onChange={(value) => value && setTab(value as ConversationStatus)}>
                <Tabs.List grow mb="sm">
                  {conversationStatuses.map((value) => (
                    <Tooltip key={value} label={shortcutLabel(tabOfStatus[value])} disabled={!hints}>
                      <Tabs.Tab value={value} rightSection={counts[value] ? <Badge size="xs" circle>{counts[value]}</Badge> : undefined} data-testid={`conversation-tab-${value}`}>
                        {t(`conversations.tabs.${value}`)}
                      </Tabs.Tab>
                    </Tooltip>
                  ))}
                </Tabs.List>
              </Tabs>
              <ConversationList status={tab} q={q} onSearch={setQ} selectedId={conversationId} onOpen={open} now={now} />
            </Paper>
          </Grid.Col>
        )}
        <Grid.Col span={{ base: 12, md: 8 }}>
          {conversationId ? (
            <ConversationView
              id={conversationId}
              onBack={wide ? undefined : () => void navigate('/conversations')}
              onTaken={() => setTab('open')}
              customerTyping={customerTyping !== null && String(customerTyping.id) === conversationId && customerTyping.until > now}
            />
          ) : (
            <Text c="dimmed" size="sm" data-testid="conversation-none">
              {t('conversations.choose')}
            </Text>
          )}
        </Grid.Col>
      </Grid>
      <ShortcutsDialog opened={helpOpen} onClose={() => setHelpOpen(false)} />
      {repliesOpen && <SavedRepliesDialog opened onClose={() => setRepliesOpen(false)} />}
    </Stack>
  );
}
