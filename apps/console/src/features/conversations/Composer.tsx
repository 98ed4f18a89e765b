import { ActionIcon, Button, Group, Popover, SegmentedControl, Stack, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconPaperclip, IconSend, IconUpload } from '@tabler/icons-react';
import { attachmentLimits, checkAttachment, megabytesOf } from '@voxplan/contracts/attachment-limits';
import { fillSavedReply } from '@voxplan/contracts/saved-reply-text';
import { forwardRef, type ReactNode, useImperativeHandle, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/errors.ts';
import classes from './conversations.module.css';
import type { MessageAttachment } from './model.ts';
import { matchingReplies, optionId, PICKER_ID, SavedReplyPicker, slashQuery } from './SavedReplyPicker.tsx';
import { type SavedReply, useSavedReplies } from './use-saved-replies.ts';
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
  /** Stores a private note (only agents see it). */
  onNote(text: string): Promise<unknown>;
  /** Sends a file (with the text typed, if any); rejects with the server's refusal. */
  onUpload(file: File, text: string): Promise<unknown>;
  onTyping(): void;
  /** The chat's provider: its files' limits (`attachmentLimits`); one without takes no files. */
  provider: string;
  /** The customer's name, when known: a saved reply's `{{name}}`. */
  customerName: string | null;
  /** Whether keys are named in the tooltips (not on a touch screen). */
  hints: boolean;
  /**
   * Past the customer service window (docs/conversations.md): what replaces the free-text box in
   * reply mode, a template's form (TemplateComposer). Notes are written as ever.
   */
  templates?: ReactNode;
}

/**
 * The agent's message box: Enter sends, Shift+Enter starts a new line; typing tells the customer
 * (throttled). Where the channel takes files, a paperclip uploads one (or shares a link), and a
 * file pasted or dropped on the box is sent too; a file the channel would refuse is refused here,
 * before it is uploaded, saying why. `/` at the start offers the tenant's saved replies
 * (SavedReplyPicker); the Note switch writes a private note instead, which only agents see.
 */
export const Composer = forwardRef<ComposerHandle, ComposerProps>(
  function Composer({ onSend, onNote, onUpload, onTyping, provider, customerName, hints, templates }, ref) {
    const { t } = useTranslation();
    // A reply goes to the customer; a note stays with the agents (the box takes the note's colours).
    const [mode, setMode] = useState<'reply' | 'note'>('reply');
    const onlyTemplates = templates !== undefined && mode === 'reply';
    // Files are free-form: none outside the window.
    const rules = templates !== undefined ? [] : (attachmentLimits[provider] ?? []);
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

    const query = mode === 'reply' ? slashQuery(text) : null;
    const savedReplies = useSavedReplies(query !== null);
    const offered = query === null ? [] : matchingReplies(savedReplies.data ?? [], query);
    const [active, setActive] = useState(0);
    const activeReply = offered[Math.min(active, offered.length - 1)];
    const pick = (reply: SavedReply) => {
      setText(fillSavedReply(reply.text, customerName));
      setActive(0);
      input.current?.focus();
    };

    const send = async (attachment?: MessageAttachment) => {
      const trimmed = text.trim();
      if ((!trimmed && !attachment) || sending) return;
      setSending(true);
      try {
        if (mode === 'note') {
          await onNote(trimmed);
          setText('');
          return;
        }
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
        {query !== null && <SavedReplyPicker replies={offered} active={Math.min(active, offered.length - 1)} onPick={pick} loading={savedReplies.isLoading} />}
        <SegmentedControl
          size="xs"
          mb={6}
          // Filled, so the chosen one reads in both schemes; a note in the note's colour.
          color={mode === 'note' ? 'yellow' : 'indigo'}
          autoContrast
          value={mode}
          onChange={(value) => {
            setMode(value as 'reply' | 'note');
            input.current?.focus();
          }}
          data={[
            { value: 'reply', label: templates !== undefined ? t('conversations.template.mode') : t('conversations.note.reply') },
            { value: 'note', label: t('conversations.note.mode') },
          ]}
          aria-label={t('conversations.note.modeLabel')}
          data-testid="conversation-mode"
        />
        {onlyTemplates && templates}
        {!onlyTemplates && (
          <Group align="flex-end" gap="xs" wrap="nowrap" className={mode === 'note' ? classes.noteMode : undefined}>
            {attachments && mode === 'reply' && (
              <Popover opened={linking} onChange={setLinking} position="top-start" trapFocus withArrow>
                <Popover.Target>
                  <Tooltip label={hints ? `${t('conversations.attach')} (${shortcutLabel('attach')})` : t('conversations.attach')}>
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
              aria-label={mode === 'note' ? t('conversations.note.message') : t('conversations.message')}
              placeholder={mode === 'note' ? t('conversations.note.placeholder') : t('conversations.messagePlaceholder')}
              aria-controls={query !== null ? PICKER_ID : undefined}
              aria-activedescendant={query !== null && activeReply ? optionId(activeReply.id) : undefined}
              value={text}
              onPaste={(event) => {
                const file = event.clipboardData.files[0];
                if (!attachments || !file || mode === 'note') return;
                event.preventDefault();
                void upload(file);
              }}
              onChange={(event) => {
                setText(event.currentTarget.value);
                setActive(0);
                // A note is no business of the customer's, nor is its typing.
                if (mode === 'note') return;
                const now = Date.now();
                if (now - lastTyping.current > TYPING_EVERY_MS) {
                  lastTyping.current = now;
                  onTyping();
                }
              }}
              onKeyDown={(event) => {
                if (query !== null && offered.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
                  event.preventDefault();
                  setActive((current) => (Math.min(current, offered.length - 1) + (event.key === 'ArrowDown' ? 1 : offered.length - 1)) % offered.length);
                  return;
                }
                if (query !== null && event.key === 'Escape') {
                  event.preventDefault();
                  setText('');
                  return;
                }
                if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
                if (query !== null && activeReply) {
                  event.preventDefault();
                  pick(activeReply);
                  return;
                }
                event.preventDefault();
                void send();
              }}
              data-testid="conversation-input"
            />
            <Tooltip label={hints ? t('conversations.sendHint') : t('conversations.send')}>
              <ActionIcon type="submit" size="lg" loading={sending} aria-label={mode === 'note' ? t('conversations.note.save') : t('conversations.send')} data-testid="conversation-send">
                <IconSend size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        )}
      </form>
    );
  },
);
