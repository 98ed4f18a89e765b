import { ActionIcon, Button, Group, Popover, Stack, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconPaperclip, IconSend, IconUpload } from '@tabler/icons-react';
import { attachmentLimits, checkAttachment, megabytesOf } from '@voxplan/contracts/attachment-limits';
import { forwardRef, useImperativeHandle, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/errors.ts';
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

interface ComposerProps {
  onSend(text: string, attachment?: MessageAttachment): Promise<unknown>;
  /** Sends a file (with the text typed, if any); rejects with the server's refusal. */
  onUpload(file: File, text: string): Promise<unknown>;
  onTyping(): void;
  /** The chat's provider: its files' limits (`attachmentLimits`); one without takes no files. */
  provider: string;
}

/**
 * The agent's message box: Enter sends, Shift+Enter starts a new line; typing tells the customer
 * (throttled). Where the channel takes files, a paperclip uploads one (or shares a link), and a
 * file pasted or dropped on the box is sent too; a file the channel would refuse is refused here,
 * before it is uploaded, saying why.
 */
export const Composer = forwardRef<ComposerHandle, ComposerProps>(
  function Composer({ onSend, onUpload, onTyping, provider }, ref) {
    const { t } = useTranslation();
    const rules = attachmentLimits[provider] ?? [];
    const attachments = rules.length > 0;
    const [fileError, setFileError] = useState<string | null>(null);
    const fileInput = useRef<HTMLInputElement>(null);
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

    const upload = async (file: File) => {
      setLinking(false);
      if (!attachments || sending) return;
      const checked = checkAttachment(provider, file.type, file.size);
      if (!checked.ok) {
        setFileError(
          checked.code === 'attachment_too_large'
            ? t('errors.attachment_too_large', { maxSize: megabytesOf(checked.maxBytes) })
            : t('errors.attachment_type_not_supported', { type: file.type || file.name }),
        );
        return;
      }
      setFileError(null);
      setSending(true);
      try {
        await onUpload(file, text.trim());
        setText('');
        lastTyping.current = 0;
      } catch (error) {
        setFileError(errorText(error, t));
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
        onDragOver={(event) => {
          if (attachments && event.dataTransfer.types.includes('Files')) event.preventDefault();
        }}
        onDrop={(event) => {
          const file = event.dataTransfer.files[0];
          if (!attachments || !file) return;
          event.preventDefault();
          void upload(file);
        }}
      >
        {attachments && (
          <input
            ref={fileInput}
            type="file"
            hidden
            accept={rules.flatMap((rule) => rule.types).join(',')}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) void upload(file);
            }}
            data-testid="conversation-file-input"
          />
        )}
        {fileError && (
          <Text size="sm" c="var(--mantine-color-error)" role="alert" mb="xs" data-testid="conversation-attach-error">
            {fileError}
          </Text>
        )}
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
                <Stack gap={4} mb="sm">
                  <Button variant="light" size="xs" leftSection={<IconUpload size={16} />} onClick={() => fileInput.current?.click()} data-testid="conversation-upload">
                    {t('conversations.upload')}
                  </Button>
                  <Text size="xs" c="dimmed">
                    {t('conversations.uploadHint')}
                  </Text>
                </Stack>
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
            onPaste={(event) => {
              const file = event.clipboardData.files[0];
              if (!attachments || !file) return;
              event.preventDefault();
              void upload(file);
            }}
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
