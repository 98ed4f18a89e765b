import { ActionIcon, Alert, Badge, Button, Center, Grid, Group, Loader, Menu, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconArrowBackUp, IconArrowLeft, IconCheck, IconChevronDown, IconHandGrab, IconTransfer } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api/client.ts';
import { useAuth, useCanWrite } from '../../lib/auth.tsx';
import { showError } from '../../lib/errors.ts';
import { formatDateTime } from '../../lib/format.ts';
import { PageError } from '../../lib/PageError.tsx';
import { toast } from '../../lib/notify.ts';
import { Facts, RunVariables } from '../visual-plans/editor/test-panel/RunDetails.tsx';
import { Composer, type ComposerHandle } from './Composer.tsx';
import { useWindowLeft, WindowNotice } from './CustomerWindow.tsx';
import { TemplateComposer, type TemplateRequest } from './TemplateComposer.tsx';
import classes from './conversations.module.css';
import { customerFacts } from './customer-facts.tsx';
import { callerOf, type CloseOutcome, customerNameOf, type MessageAttachment } from './model.ts';
import { cancelResolve, isResolvePending, scheduleResolve, UNDO_RESOLVE_MS } from './pending-close.ts';
import { conversationShortcuts, type ShortcutAction, shortcutLabel, useShortcutHints } from './shortcuts.ts';
import { TransferDialog } from './TransferDialog.tsx';
import { Transcript } from './Transcript.tsx';
import { useConversation, useConversationActions } from './use-conversations.ts';

// Colours whose light badges keep WCAG AA contrast in both schemes (green and orange do not).
const statusColors = { waiting: 'red', open: 'indigo', closed: 'gray' } as const;

/** A button's tooltip with its key, so that every shortcut can be found where its action is; none on a touch screen. */
function WithKey({ label, action, hints, children }: { label: string; action: ShortcutAction; hints: boolean; children: ReactNode }) {
  return (
    <Tooltip label={`${label} (${shortcutLabel(action)})`} disabled={!hints}>
      {children}
    </Tooltip>
  );
}

/** The toast of a resolve that may still be undone: its Undo button cancels it (pending-close.ts). */
function showUndoToast(id: string, t: (key: string) => string, onUndo: () => void): void {
  notifications.show({
    id: `resolve-${id}`,
    color: 'indigo',
    autoClose: UNDO_RESOLVE_MS,
    withCloseButton: false,
    message: (
      <Group justify="space-between" wrap="nowrap" gap="sm" data-testid="conversation-undo-toast">
        <Text size="sm" style={{ flex: 1, minWidth: 0 }}>
          {t('conversations.resolving')}
        </Text>
        <Button size="compact-sm" variant="light" onClick={onUndo} style={{ flexShrink: 0 }} data-testid="conversation-undo">
          {t('conversations.undo')}
        </Button>
      </Group>
    ),
  });
}

/** One conversation: its transcript, its facts and what the agent may do with it now. */
export function ConversationView({ id, onTaken, onBack, customerTyping }: { id: string; onTaken(): void; onBack?: () => void; customerTyping: boolean }) {
  const { t, i18n } = useTranslation();
  const { profile } = useAuth();
  const canWrite = useCanWrite();
  const conversation = useConversation(id);
  const actions = useConversationActions(id);
  const [transferring, setTransferring] = useState(false);
  const [takenByOther, setTakenByOther] = useState(false);
  const composer = useRef<ComposerHandle>(null);
  const hints = useShortcutHints();
  // After Take the message box gets the cursor, once it is there (the chat is the agent's).
  const [focusOnTaken, setFocusOnTaken] = useState(false);
  const [resolving, setResolving] = useState(() => isResolvePending(id));
  const row = conversation.data;
  const mine = row?.status === 'open' && row.agent !== null && profile !== undefined && String(row.agent.id) === String(profile.id);
  const canAct = canWrite && mine;
  const canTake = canWrite && row?.status === 'waiting';
  // WhatsApp's 24-hour window, counted down here: past it only a template goes (docs/conversations.md).
  const windowLeft = useWindowLeft(row?.window_closes_at ?? null);

  useEffect(() => {
    setTakenByOther(false);
    setResolving(isResolvePending(id));
  }, [id]);
  useEffect(() => {
    if (!focusOnTaken || !canAct) return;
    composer.current?.focus();
    setFocusOnTaken(false);
  }, [focusOnTaken, canAct]);
  // The agent reading their own chat has read what came in.
  const unread = row?.unread ?? 0;
  const { mutate: markRead } = actions.read;
  useEffect(() => {
    if (mine && unread > 0) markRead();
  }, [mine, unread, markRead]);

  const take = () => {
    if (!canTake || actions.take.isPending) return;
    actions.take.mutate(undefined, {
      onSuccess: () => {
        setFocusOnTaken(true);
        onTaken();
      },
      onError: (error) => {
        // The code is new with docs/conversations.md; read as text until the catalogue has it.
        if (error instanceof ApiError && (error.code as string | undefined) === 'conversation_taken') setTakenByOther(true);
        else showError(error, t);
      },
    });
  };
  const close = (outcome: CloseOutcome) => {
    if (!canAct || actions.close.isPending) return;
    actions.close.mutate(outcome, {
      onSuccess: () => toast('success', t(`conversations.closed.${outcome}`)),
      onError: (error) => showError(error, t),
    });
  };
  // By its key a resolve may be undone for a few seconds (a key is pressed by mistake more easily than a menu is chosen).
  const resolveUndoably = () => {
    if (!canAct || actions.close.isPending || isResolvePending(id)) return;
    const { mutate } = actions.close;
    scheduleResolve(id, () => {
      setResolving(false);
      mutate('resolved', { onSuccess: () => toast('success', t('conversations.closed.resolved')), onError: (error) => showError(error, t) });
    });
    setResolving(true);
    showUndoToast(id, t, () => {
      cancelResolve(id);
      setResolving(false);
      notifications.hide(`resolve-${id}`);
      composer.current?.focus();
    });
  };
  const send = (text: string, attachment?: MessageAttachment) =>
    actions.send.mutateAsync({ text, ...(attachment ? { attachment } : {}) }).catch((error: unknown) => showError(error, t));
  // Not caught: the template's form says why it was refused, beside it.
  const sendTemplate = (template: TemplateRequest) => actions.send.mutateAsync({ template });
  const note = (text: string) => actions.note.mutateAsync(text).catch((error: unknown) => showError(error, t));
  // Not caught: the composer says why a file was refused, beside it.
  const upload = (file: File, text: string) => actions.upload.mutateAsync({ file, text });

  const keys: Array<[ShortcutAction, () => void]> = [
    ['take', take],
    ['transfer', () => canAct && setTransferring(true)],
    ['resolve', resolveUndoably],
    ['backToPlan', () => close('back_to_plan')],
    ['attach', () => composer.current?.attach()],
    ['compose', () => composer.current?.focus()],
  ];
  useHotkeys(
    keys.map(([action, handler]) => [conversationShortcuts[action], handler, { usePhysicalKeys: true }]),
    [],
  );

  if (conversation.isError) return <PageError error={conversation.error} onRetry={() => void conversation.refetch()} />;
  if (!row) {
    return (
      <Center h={200}>
        <Loader aria-label={t('common.loading')} />
      </Center>
    );
  }
  const facts: Array<[string, ReactNode]> = [
    [t('conversations.fields.plan'), row.plan.name],
    [t('conversations.fields.channel'), t(`reports.provider.${row.provider}`, { defaultValue: row.provider })],
    // A web chat has no caller id: the name its visitor gave says who the customer is, not a dash.
    [t('conversations.fields.caller'), row.caller || row.customer?.name || '—'],
    ...customerFacts(row.customer, t),
    [t('conversations.fields.protocol'), row.protocol || '—'],
    [t('conversations.fields.queue'), row.queue?.name ?? '—'],
    [t('conversations.fields.agent'), row.agent?.name ?? '—'],
    [t('conversations.fields.waitingSince'), formatDateTime(row.waiting_since, i18n.language) ?? '—'],
    [t('conversations.fields.takenAt'), formatDateTime(row.taken_at, i18n.language) ?? '—'],
  ];
  if (row.status === 'closed') {
    facts.push([t('conversations.fields.closedAt'), formatDateTime(row.closed_at, i18n.language) ?? '—']);
    facts.push([t('conversations.fields.outcome'), row.outcome ? t(`conversations.outcome.${row.outcome}`) : '—']);
  }

  return (
    <Stack gap="sm" data-testid="conversation-view">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs">
          {onBack && (
            <ActionIcon variant="default" size="lg" aria-label={t('conversations.backToList')} onClick={onBack} data-testid="conversation-back">
              <IconArrowLeft size={18} />
            </ActionIcon>
          )}
          <Title order={3} size="h4" data-testid="conversation-title">
            {callerOf(row, t('conversations.unknownCaller'))}
          </Title>
          <Badge color={statusColors[row.status]} variant="light" data-testid="conversation-status">
            {t(`conversations.status.${row.status}`)}
          </Badge>
        </Group>
        <Group gap="xs">
          {canTake && (
            <WithKey label={t('conversations.take')} action="take" hints={hints}>
              <Button leftSection={<IconHandGrab size={16} />} onClick={take} loading={actions.take.isPending} data-testid="conversation-take">
                {t('conversations.take')}
              </Button>
            </WithKey>
          )}
          {canAct && (
            <>
              <WithKey label={t('conversations.transfer')} action="transfer" hints={hints}>
                <Button variant="default" leftSection={<IconTransfer size={16} />} onClick={() => setTransferring(true)} data-testid="conversation-transfer">
                  {t('conversations.transfer')}
                </Button>
              </WithKey>
              <Menu position="bottom-end">
                <Menu.Target>
                  <Button rightSection={<IconChevronDown size={14} />} loading={actions.close.isPending || resolving} data-testid="conversation-close">
                    {t('conversations.close')}
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item leftSection={<IconCheck size={16} />} onClick={() => close('resolved')} rightSection={hints && <Text size="xs">{shortcutLabel('resolve')}</Text>} data-testid="close-resolved">
                    {t('conversations.closeResolved')}
                  </Menu.Item>
                  <Menu.Item leftSection={<IconArrowBackUp size={16} />} onClick={() => close('back_to_plan')} rightSection={hints && <Text size="xs">{shortcutLabel('backToPlan')}</Text>} data-testid="close-back">
                    {t('conversations.closeBackToPlan')}
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </>
          )}
        </Group>
      </Group>
      {takenByOther && (
        <Alert color="orange" data-testid="conversation-taken">
          {t('conversations.takenByOther', { name: row.agent?.name ?? t('conversations.author.agent') })}
        </Alert>
      )}
      {!canWrite && (
        <Text size="sm" c="dimmed">
          {t('conversations.guest')}
        </Text>
      )}
      <Grid gap="md">
        {/* The details beside the chat only where both fit (at 1280 px beside the menu they were cut): below it otherwise. */}
        <Grid.Col span={{ base: 12, xl: 8 }}>
          <Paper withBorder p="xs">
            <Stack gap="xs">
              <Transcript conversation={row} />
              <div className={classes.dock}>
                {/* Always there, so that a screen reader hears the notice when it comes. */}
                <Text size="sm" c="dimmed" role="status" mih={22} data-testid="conversation-customer-typing">
                  {customerTyping && row.status !== 'closed' ? t('conversations.customerTyping') : ''}
                </Text>
                {canAct && windowLeft !== null && <WindowNotice left={windowLeft} />}
                {canAct && (
                  <Composer
                    ref={composer}
                    onSend={send}
                    onNote={note}
                    onUpload={upload}
                    onTyping={actions.typing}
                    provider={row.provider}
                    customerName={customerNameOf(row)}
                    hints={hints}
                    {...(windowLeft !== null && windowLeft <= 0 && { templates: <TemplateComposer conversationId={row.id} onSend={sendTemplate} /> })}
                  />
                )}
              </div>
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, xl: 4 }}>
          <Stack gap="sm">
            <Paper withBorder p="sm">
              <Facts rows={facts} label={t('conversations.details')} testId="conversation-facts" />
            </Paper>
            <Paper withBorder p="sm">
              <Title order={4} size="h5" mb="xs">
                {t('conversations.variables')}
              </Title>
              <RunVariables variables={row.variables} />
            </Paper>
          </Stack>
        </Grid.Col>
      </Grid>
      {transferring && (
        <TransferDialog
          currentQueueId={row.queue?.id}
          busy={actions.transfer.isPending}
          onClose={() => setTransferring(false)}
          onTransfer={(target) =>
            actions.transfer.mutate(target, {
              onSuccess: () => {
                setTransferring(false);
                toast('success', t('conversations.transferred'));
              },
              onError: (error) => showError(error, t),
            })
          }
        />
      )}
    </Stack>
  );
}
