import { Anchor, Badge, Divider, Image, Text } from '@mantine/core';
import { IconLock, IconTemplate } from '@tabler/icons-react';
import { type ReactNode, useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatDateTime } from '../../lib/format.ts';
import type { ConversationDetail, ConversationMessage } from './model.ts';
import classes from './conversations.module.css';

export function Bubble({ who, text, at, right, children }: { who: string; text: string; at: string; right: boolean; children?: ReactNode }) {
  const { i18n } = useTranslation();
  return (
    <div className={classes.bubble} data-side={right ? 'right' : 'left'} data-testid="conversation-message">
      <Text size="xs" fw={600} component="div">
        {who} <span className={classes.time}>· {formatDateTime(at, i18n.language)}</span>
      </Text>
      <Text size="sm" component="div">
        {text}
      </Text>
      {children}
    </div>
  );
}

/**
 * A file or link sent with a message, by its name (and size, for a file uploaded): an uploaded image
 * as a thumbnail too, unless `compact` (a report names it only). Opens in a new tab.
 */
export function AttachmentView({ attachment, compact = false }: { attachment: NonNullable<ConversationMessage['attachment']>; compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const name = attachment.name || t('conversations.attachment');
  const label = attachment.size === null ? name : `${name} (${formatBytes(attachment.size, i18n.language)})`;
  const thumbnail = !compact && attachment.size !== null && attachment.content_type.startsWith('image/');
  // A customer's WhatsApp file is known by its type and name only (its bytes stay at Meta).
  if (!attachment.url) {
    return (
      <Text size="sm" c="dimmed" data-testid="conversation-attachment">
        {attachment.name || t('conversations.attachment')} ({attachment.content_type || '—'})
      </Text>
    );
  }
  return (
    <Anchor href={attachment.url} target="_blank" rel="noreferrer" size="sm" display="block" data-testid="conversation-attachment">
      {thumbnail && <Image src={attachment.url} alt={name} maw={220} mah={160} fit="contain" radius="sm" mt={4} data-testid="conversation-attachment-image" />}
      {label}
    </Anchor>
  );
}

/** Who wrote a message, by name: the agent's as the server gives it (or the conversation's agent), never an id. */
export function authorName(message: ConversationMessage, agent: ConversationDetail['agent'], t: (key: string) => string): string {
  if (message.author === 'agent') return message.agent?.name ?? agent?.name ?? t('conversations.author.agent');
  return t(`conversations.author.${message.author}`);
}

/**
 * A system message in the reader's words: the server stores codes (`customer_left:<reason>`,
 * `transferred: <name>`); anything else is shown as it is.
 */
export function systemText(text: string, t: (key: string, options?: Record<string, string>) => string): string {
  if (text.startsWith('customer_left:')) return t(`conversations.system.customerLeft.${text.slice('customer_left:'.length)}`, { defaultValue: text });
  if (text.startsWith('transferred: ')) return t('conversations.system.transferred', { name: text.slice('transferred: '.length) });
  return text;
}

/** How near the end (px) the agent's reading counts as "at the newest": a new message then keeps them there. */
const AT_END_PX = 48;

/**
 * The whole conversation, oldest first: the plan's part (the session's transcript), the hand-off,
 * then what the customer and the agents wrote, the agents' private notes set apart. Opens at the
 * newest; a new message keeps it there unless the agent scrolled up to read (issue 36). Only the
 * transcript scrolls, never the page around it.
 */
export function Transcript({ conversation }: { conversation: ConversationDetail }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const count = conversation.messages.length;
  useLayoutEffect(() => {
    atEnd.current = true;
  }, [conversation.id]);
  useLayoutEffect(() => {
    const element = box.current;
    if (element && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [count, conversation.id]);
  return (
    <div
      ref={box}
      className={classes.transcript}
      role="log"
      aria-label={t('conversations.transcript')}
      data-testid="conversation-transcript"
      onScroll={(event) => {
        const element = event.currentTarget;
        atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < AT_END_PX;
      }}
    >
      {conversation.bot_transcript.map((entry, index) => (
        <Bubble key={`bot-${index}`} who={t(entry.from === 'caller' ? 'conversations.author.customer' : 'conversations.author.bot')} text={entry.text} at={entry.at} right={entry.from !== 'caller'} />
      ))}
      <Divider className={classes.divider} w="100%" label={t('conversations.handedOver', { queue: conversation.queue?.name ?? '—' })} labelPosition="center" />
      {conversation.messages.map((message) =>
        message.author === 'system' ? (
          <Text key={message.id} size="xs" c="dimmed" ta="center" data-testid="conversation-system">
            {systemText(message.text, t)}
          </Text>
        ) : message.author === 'note' ? (
          <NoteBubble key={message.id} who={message.agent?.name ?? t('conversations.author.agent')} text={message.text} at={message.created_at} />
        ) : (
          <Bubble key={message.id} who={authorName(message, conversation.agent, t)} text={message.text} at={message.created_at} right={message.author !== 'customer'}>
            {message.attachment && <AttachmentView attachment={message.attachment} />}
            {message.template && (
              <Badge size="sm" variant="light" color="indigo" tt="none" mt={4} leftSection={<IconTemplate size={12} aria-hidden />} data-testid="conversation-template-mark">
                {t('conversations.template.mark', { name: message.template.name, language: message.template.language })}
              </Badge>
            )}
          </Bubble>
        ),
      )}
    </div>
  );
}

/** An agent's private note: set apart by its colour, its lock and its label, so that nobody takes it for something the customer read. */
export function NoteBubble({ who, text, at }: { who: string; text: string; at: string }) {
  const { t, i18n } = useTranslation();
  return (
    <div className={classes.note} data-testid="conversation-note">
      <Text size="xs" fw={600} component="div">
        <IconLock size={12} aria-hidden /> {t('conversations.note.label', { name: who })} <span className={classes.time}>· {formatDateTime(at, i18n.language)}</span>
      </Text>
      <Text size="sm" component="div">
        {text}
      </Text>
    </div>
  );
}
