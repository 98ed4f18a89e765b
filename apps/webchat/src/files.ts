/**
 * What the widget checks of a visitor's file before it uploads it (docs/channels-webchat.md,
 * "Files"): the web chat's types and sizes, from the same table the server enforces
 * (`attachmentLimits`, without the schemas, so the script stays small). A refused file is never
 * sent, and the visitor reads why in the widget's language.
 */
import type { WebchatConversation } from '@voxplan/contracts';
import { attachmentLimits, checkAttachment, megabytesOf } from '@voxplan/contracts/attachment-limits';
import { type WebchatApi, WidgetApiError } from './api.ts';
import { h, randomId, sleep } from './dom.ts';
import type { Words } from './i18n.ts';

const PROVIDER = 'webchat';

/** The file picker's `accept`: the types the web chat takes. */
export const acceptedTypes = (attachmentLimits[PROVIDER] ?? []).flatMap((rule) => rule.types).join(',');

/** Why the web chat does not take this file, in the visitor's words; null when it does. */
export function refusalOf(file: File, words: Words, lang: string): string | null {
  const checked = checkAttachment(PROVIDER, file.type, file.size);
  if (checked.ok) return null;
  if (checked.code === 'attachment_too_large') return words.fileTooLarge.replace('{size}', megabytesOf(checked.maxBytes).toLocaleString(lang));
  return words.fileType.replace('{type}', file.type || (file.name.includes('.') ? `.${file.name.split('.').pop()!}` : file.name));
}

/** A file's size as people read it: bytes, KB or MB, in the visitor's language's numbers. */
export function sizeOf(bytes: number, lang: string): string {
  const format = (value: number, unit: string) => `${value.toLocaleString(lang, { maximumFractionDigits: 1 })} ${unit}`;
  if (bytes < 1024) return format(bytes, 'B');
  if (bytes < 1024 * 1024) return format(bytes / 1024, 'KB');
  return format(bytes / (1024 * 1024), 'MB');
}

/** The files a paste or a drop carries (none when it carries only text). */
const filesOf = (transfer: DataTransfer | null): File[] => (transfer ? Array.from(transfer.files) : []);

/** The paperclip's icon. */
export const paperclip =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5H9v9a3 3 0 0 0 6 0V5a4.5 4.5 0 0 0-9 0v11.5a6 6 0 0 0 12 0v-10z"/></svg>';

interface Sender {
  api: WebchatApi;
  words: Words;
  lang: string;
  log: HTMLElement;
  alert: HTMLElement;
  /** The conversation the widget shows now. */
  current: () => WebchatConversation | null;
  render: (view: WebchatConversation) => void;
  listen: () => Promise<void>;
  showError: (error: unknown) => void;
}

/**
 * Sends the visitor's files one after the other: each checked first (a refused one is never sent),
 * then sent with its progress shown in the conversation, then shown as the server stored it.
 */
export function fileSender({ api, words, lang, log, alert, current, render, listen, showError }: Sender): (files: readonly File[]) => Promise<void> {
  /** Why the server refused a file, in the visitor's words. */
  function showFileError(error: unknown, file: File): void {
    const code = error instanceof WidgetApiError ? error.code : undefined;
    if (code === 'webchat_files_need_a_person') alert.textContent = words.filesNeedPerson;
    // The widget took its type: the server read other content than the type says.
    else if (code === 'attachment_type_not_supported') alert.textContent = refusalOf(file, words, lang) ?? words.fileContent.replace('{type}', file.type);
    else if (code === 'attachment_too_large') alert.textContent = refusalOf(file, words, lang) ?? words.failed;
    else showError(error);
  }

  async function sendFile(file: File): Promise<void> {
    const conversation = current();
    if (!conversation || conversation.status === 'ended') return;
    const refusal = conversation.files ? refusalOf(file, words, lang) : words.filesNeedPerson;
    if (refusal) {
      alert.textContent = refusal;
      return;
    }
    alert.textContent = '';
    const label = words.uploading.replace('{name}', file.name);
    const progress = h('progress', { max: '100', value: '0', 'aria-label': label });
    const pending = h('div', { class: 'msg user uploading' }, h('span', {}, label), progress);
    log.append(pending);
    log.scrollTop = log.scrollHeight;
    const id = randomId();
    const upload = () => api.upload(conversation.conversation_id, id, file, (fraction) => (progress.value = Math.round(fraction * 100)));
    try {
      let view: WebchatConversation;
      try {
        view = await upload();
      } catch (error) {
        // Lost on the way: sent again under the same id, it is stored once.
        if (!(error instanceof WidgetApiError) || (error.status !== 0 && error.status < 500)) throw error;
        await sleep(1000);
        view = await upload();
      }
      pending.remove();
      render(view);
      void listen();
    } catch (error) {
      pending.remove();
      showFileError(error, file);
    }
  }

  return async (files) => {
    for (const file of files) await sendFile(file);
  };
}

/** Where a file comes from: the paperclip's picker, a paste in the message field, a drop on the conversation. */
export function takeFiles(
  { panel, input, attach, fileInput }: { panel: HTMLElement; input: HTMLInputElement; attach: HTMLButtonElement; fileInput: HTMLInputElement },
  send: (files: readonly File[]) => Promise<void>,
  hasConversation: () => boolean,
): void {
  attach.addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => {
    const files = Array.from(fileInput.files ?? []);
    // Cleared, so that the same file picked again is sent again.
    fileInput.value = '';
    void send(files);
  });
  input.addEventListener('paste', (event) => {
    const files = filesOf(event.clipboardData);
    if (files.length === 0) return;
    event.preventDefault();
    void send(files);
  });
  // A file dragged over the conversation: the log says where to drop it.
  panel.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files') !== true || !hasConversation()) return;
    event.preventDefault();
    panel.classList.add('dropping');
  });
  panel.addEventListener('dragleave', (event) => {
    if (!panel.contains(event.relatedTarget as Node | null)) panel.classList.remove('dropping');
  });
  panel.addEventListener('drop', (event) => {
    panel.classList.remove('dropping');
    const files = filesOf(event.dataTransfer);
    if (files.length === 0) return;
    event.preventDefault();
    void send(files);
  });
}
