import { ActionIcon, Button, Group, Popover, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconPaperclip, IconSend } from '@tabler/icons-react';
import { forwardRef, useImperativeHandle, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageAttachment } from './model.ts';
import { shortcutLabel } from './shortcuts.ts';

/** How often, at most, "the agent is typing" is told to the customer while they type. */
const TYPING_EVERY_MS = 3000;

export interface ComposerHandle {
  focus(): void;
  attach(): void;
}

const contentTypes: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  txt: 'text/plain',
  csv: 'text/csv',
};

/**
 * A file the agent shares by its https link (docs/conversations.md: the channel fetches it, as
 * WhatsApp's Graph API does); its name and type from the link's last segment. Undefined: not an
 * https URL.
 */
export function attachmentOf(link: string): MessageAttachment | undefined {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:') return undefined;
  const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  const extension = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  return { url: url.href, name, content_type: contentTypes[extension] ?? 'application/octet-stream' };
}

/**
 * The agent's message box: Enter sends, Shift+Enter starts a new line; typing tells the customer
 * (throttled); a paperclip shares a file's link where the channel takes files.
 */
export const Composer = forwardRef<ComposerHandle, { onSend(text: string, attachment?: MessageAttachment): Promise<unknown>; onTyping(): void; attachments: boolean }>(
  function Composer({ onSend, onTyping, attachments }, ref) {
    const { t } = useTranslation();
    const [text, setText] = useState('');
    const [sending, setSending] = useState(false);
    const [linking, setLinking] = useState(false);
    const [link, setLink] = useState('');
    const [linkError, setLinkError] = useState(false);
    const input = useRef<HTMLTextAreaElement>(null);
    const lastTyping = useRef(0);
    useImperativeHandle(ref, () => ({ focus: () => input.current?.focus(), attach: () => attachments && setLinking(true) }), [attachments]);

    const send = async (attachment?: MessageAttachment) => {
      const trimmed = text.trim();
      if ((!trimmed && !attachment) || sending) return;
      setSending(true);
      try {
        await onSend(trimmed, attachment);
        if (!attachment || trimmed) setText('');
        // The message ended the customer's "is typing": the next keystroke tells it afresh.
        lastTyping.current = 0;
      } finally {
        setSending(false);
        input.current?.focus();
      }
    };

    const sendLink = async () => {
      const attachment = attachmentOf(link);
      setLinkError(!attachment);
      if (!attachment) return;
      setLinking(false);
      setLink('');
      await send(attachment);
    };

    return (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <Group align="flex-end" gap="xs" wrap="nowrap">
          {attachments && (
            <Popover opened={linking} onChange={setLinking} position="top-start" trapFocus withArrow>
              <Popover.Target>
                <Tooltip label={`${t('conversations.attach')} (${shortcutLabel('attach')})`}>
                  <ActionIcon variant="default" size="lg" aria-label={t('conversations.attach')} onClick={() => setLinking((open) => !open)} data-testid="conversation-attach">
                    <IconPaperclip size={18} />
                  </ActionIcon>
                </Tooltip>
              </Popover.Target>
              <Popover.Dropdown>
                <Group gap="xs" align="flex-start" wrap="nowrap">
                  <TextInput
                    label={t('conversations.attachLink')}
                    description={t('conversations.attachLinkHint')}
                    placeholder={t('conversations.attachLinkPlaceholder')}
                    value={link}
                    onChange={(event) => {
                      setLink(event.currentTarget.value);
                      setLinkError(false);
                    }}
                    onKeyDown={(event) => {
                      if (event.key !== 'Enter') return;
                      event.preventDefault();
                      void sendLink();
                    }}
                    error={linkError ? t('conversations.attachLinkInvalid') : undefined}
                    data-testid="conversation-attach-link"
                  />
                </Group>
                <Group justify="flex-end" mt="xs">
                  <Button size="xs" onClick={() => void sendLink()} data-testid="conversation-attach-send">
                    {t('conversations.send')}
                  </Button>
                </Group>
              </Popover.Dropdown>
            </Popover>
          )}
          <Textarea
            ref={input}
            style={{ flex: 1 }}
            autosize
            minRows={1}
            maxRows={6}
            maxLength={2000}
            aria-label={t('conversations.message')}
            placeholder={t('conversations.messagePlaceholder')}
            value={text}
            onChange={(event) => {
              setText(event.currentTarget.value);
              const now = Date.now();
              if (now - lastTyping.current > TYPING_EVERY_MS) {
                lastTyping.current = now;
                onTyping();
              }
            }}
            onKeyDown={(event) => {
              if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
              event.preventDefault();
              void send();
            }}
            data-testid="conversation-input"
          />
          <Tooltip label={t('conversations.sendHint')}>
            <ActionIcon type="submit" size="lg" loading={sending} aria-label={t('conversations.send')} data-testid="conversation-send">
              <IconSend size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </form>
    );
  },
);
