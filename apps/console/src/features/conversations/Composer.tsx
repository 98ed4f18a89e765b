import { ActionIcon, FileButton, Group, Text, Textarea, Tooltip } from '@mantine/core';
import { IconPaperclip, IconSend } from '@tabler/icons-react';
import { forwardRef, useImperativeHandle, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageAttachment } from './model.ts';
import { shortcutLabel } from './shortcuts.ts';

/** How often, at most, "the agent is typing" is told to the customer while they type. */
const TYPING_EVERY_MS = 3000;
/** The largest file sent in a message: WhatsApp's limit for documents is larger, the widget's smaller poll answers want this. */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;

export interface ComposerHandle {
  focus(): void;
  attach(): void;
}

export interface OutgoingAttachment extends MessageAttachment {
  /** The file's bytes, base64: the server stores it and gives the customer its link. */
  data: string;
}

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable file'));
    reader.readAsDataURL(file);
  });
}

/**
 * The agent's message box: Enter sends, Shift+Enter starts a new line; typing tells the customer
 * (throttled); a paperclip sends a file where the channel takes one.
 */
export const Composer = forwardRef<ComposerHandle, { onSend(text: string, attachment?: OutgoingAttachment): Promise<unknown>; onTyping(): void; attachments: boolean }>(
  function Composer({ onSend, onTyping, attachments }, ref) {
    const { t } = useTranslation();
    const [text, setText] = useState('');
    const [sending, setSending] = useState(false);
    const [tooLarge, setTooLarge] = useState(false);
    const input = useRef<HTMLTextAreaElement>(null);
    const resetFile = useRef<() => void>(null);
    const fileButton = useRef<HTMLButtonElement>(null);
    const lastTyping = useRef(0);
    useImperativeHandle(ref, () => ({ focus: () => input.current?.focus(), attach: () => fileButton.current?.click() }), []);

    const send = async (attachment?: OutgoingAttachment) => {
      const trimmed = text.trim();
      if ((!trimmed && !attachment) || sending) return;
      setSending(true);
      try {
        await onSend(trimmed, attachment);
        if (!attachment || trimmed) setText('');
      } finally {
        setSending(false);
        input.current?.focus();
      }
    };

    const sendFile = async (file: File | null) => {
      resetFile.current?.();
      if (!file) return;
      setTooLarge(file.size > ATTACHMENT_MAX_BYTES);
      if (file.size > ATTACHMENT_MAX_BYTES) return;
      await send({ name: file.name, content_type: file.type || 'application/octet-stream', url: '', data: await base64Of(file) });
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
            <FileButton onChange={(file) => void sendFile(file)} resetRef={resetFile}>
              {(props) => (
                <Tooltip label={`${t('conversations.attach')} (${shortcutLabel('attach')})`}>
                  <ActionIcon {...props} ref={fileButton} variant="default" size="lg" aria-label={t('conversations.attach')} data-testid="conversation-attach">
                    <IconPaperclip size={18} />
                  </ActionIcon>
                </Tooltip>
              )}
            </FileButton>
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
        {tooLarge && (
          <Text size="xs" c="red" role="alert">
            {t('conversations.attachmentTooLarge', { size: '5 MB' })}
          </Text>
        )}
      </form>
    );
  },
);
