/**
 * The web chat widget (docs/channels-webchat.md): a launcher button and a chat panel that a page
 * gets from one tag, `<script src=".../widget.js" data-key="wc_..." async></script>`. Plain DOM in
 * a shadow root, so it neither takes the page's styles nor leaks its own. The conversation's id is
 * kept in localStorage, so a reload shows the same conversation; what the plan says on its own
 * arrives through a long poll while the panel is open.
 */
import type { WebchatConversation, WebchatOption, WebchatPrechatField, WebchatStart } from '@voxplan/contracts';
import { WebchatApi, WidgetApiError } from './api.ts';
import { acceptedTypes, fileSender, paperclip, sizeOf, takeFiles } from './files.ts';
import { wordsFor } from './i18n.ts';
import { EMAIL, h, identityOf, randomId, pageUrl, sleep, type Child } from './dom.ts';
import { styles } from './styles.ts';

/** Read while the script runs: `document.currentScript` is null once it has. */
const script = (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[data-key][src*="widget.js"]');

/** A message of the transcript: the plan's, the customer's, or a person's who took the conversation over (docs/conversations.md), with their name. */
type Message = WebchatConversation['messages'][number];
/** A long poll's answer while a person has the conversation: "<name> is typing". */
interface TypingNotice {
  type: 'typing';
  agent_name: string;
}
/** How often, at most, the user's typing is told (as the console tells the agent's). */
const TYPING_EVERY_MS = 3000;
/** How long "<name> is typing" stays without a new notice or message. */
const TYPING_SHOWN_MS = 6000;

const isTypingNotice = (answer: unknown): answer is TypingNotice => typeof answer === 'object' && answer !== null && (answer as { type?: unknown }).type === 'typing';

interface Stored {
  id?: string;
  open?: boolean;
  /** This browser's own id, kept across conversations: a staged rollout shows the visitor one version of the plan. */
  visitor?: string;
}

function mount(tag: HTMLScriptElement): void {
  const key = tag.dataset.key ?? '';
  const base = new URL(tag.src, location.href).origin;
  const { lang, words } = wordsFor(tag.dataset.lang || document.documentElement.lang);
  const api = new WebchatApi(base, key, lang);
  const storageKey = `voxplan-webchat:${key}`;

  const load = (): Stored => {
    try {
      return JSON.parse(localStorage.getItem(storageKey) ?? '{}') as Stored;
    } catch {
      return {};
    }
  };
  const save = (change: Stored) => {
    try {
      localStorage.setItem(storageKey, JSON.stringify({ ...load(), ...change }));
    } catch {
      // Storage blocked (private mode, a sandboxed frame): the chat works, a reload starts afresh.
    }
  };

  const visitorId = (): string => {
    const kept = load().visitor;
    if (kept) return kept;
    const made = randomId();
    save({ visitor: made });
    return made;
  };

  const host = h('div', { 'data-voxplan-webchat': '', 'data-theme': ['light', 'dark'].includes(tag.dataset.theme ?? '') ? tag.dataset.theme! : 'auto', lang });
  const root = host.attachShadow({ mode: 'open' });

  const launcher = h('button', { type: 'button', class: 'launcher', 'aria-expanded': 'false', 'aria-controls': 'panel', 'aria-label': words.open });
  launcher.innerHTML = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';
  const close = h('button', { type: 'button', class: 'close', 'aria-label': words.close }, '×');
  const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': words.messages, 'data-drop': words.dropHere });
  const options = h('div', { class: 'options', role: 'group', 'aria-label': words.options, hidden: '' });
  const status = h('div', { class: 'status', role: 'status' });
  const alert = h('div', { class: 'status error', role: 'alert' });
  const restart = h('button', { type: 'button', class: 'restart' }, words.restart);
  const ended = h('div', { class: 'ended', hidden: '' }, h('span', {}, words.ended), restart);
  const identity = identityOf(tag);
  const nameField = h('input', { type: 'text', name: 'name', autocomplete: 'name', maxlength: '100' });
  const emailField = h('input', { type: 'email', name: 'email', autocomplete: 'email', maxlength: '254' });
  const nameLabel = h('label', {}, words.name, nameField);
  const emailLabel = h('label', {}, words.email, emailField);
  const prechat = h('form', { class: 'prechat', hidden: '', novalidate: '' }, h('p', {}, words.prechatIntro), nameLabel, emailLabel, h('button', { type: 'submit', class: 'send' }, words.startChat));
  const input = h('input', { type: 'text', name: 'message', autocomplete: 'off', maxlength: '2000', 'aria-label': words.message, placeholder: words.placeholder });
  const send = h('button', { type: 'submit', class: 'send' }, words.send);
  // Shown while a conversation holds the chat (waiting for a person, or with one): plans read no files.
  const attach = h('button', { type: 'button', class: 'attach', 'aria-label': words.attach, title: words.attach, hidden: '' });
  attach.innerHTML = paperclip;
  const fileInput = h('input', { type: 'file', accept: acceptedTypes, multiple: '', hidden: '', tabindex: '-1', 'aria-hidden': 'true' });
  const form = h('form', {}, attach, fileInput, input, send);
  const panel = h(
    'div',
    { id: 'panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'title', hidden: '' },
    h('header', {}, h('h2', { id: 'title' }, words.title), close),
    prechat,
    log,
    options,
    ended,
    status,
    alert,
    form,
  );
  root.append(h('style', {}, styles), panel, launcher);
  document.body.append(host);

  let conversation: WebchatConversation | null = null;
  /** Messages of the conversation already in the log; what comes after is appended, so a screen reader hears only that. */
  let shown = 0;
  let sending = false;
  let poll: AbortController | null = null;

  let agentTypingTimer: ReturnType<typeof setTimeout> | undefined;

  /** A file sent with a message: an image shown in place (opening it whole), any other file as a download link with its name. */
  const attachmentOf = (attachment: NonNullable<Message['attachment']>): Node => {
    const name = attachment.name || words.attachment;
    const link = { href: attachment.url, target: '_blank', rel: 'noopener noreferrer' };
    if (attachment.content_type.startsWith('image/') && attachment.size !== null) {
      return h('a', { ...link, class: 'file-image' }, h('img', { src: attachment.url, alt: name, loading: 'lazy' }));
    }
    const size = attachment.size === null ? '' : ` (${sizeOf(attachment.size, lang)})`;
    return h('a', { ...link, class: 'file', 'data-file': '' }, words.download.replace('{name}', name) + size);
  };

  const bubble = (message: Message) => {
    const { from, text, agent_name: agentName, attachment } = message;
    const content: Child[] = [text, ...(attachment ? [attachmentOf(attachment)] : [])];
    return from === 'agent'
      ? // The person's name is shown, so the customer knows who answers; a screen reader reads it once, from the label.
        h('div', { class: 'msg agent' }, h('span', { class: 'name' }, agentName || words.them), ...content)
      : // A picture sent alone is shown as itself, not inside a coloured bubble that could match its colours.
        h('div', { class: `msg ${from}${!text && attachment?.content_type.startsWith('image/') && attachment.size !== null ? ' bare' : ''}` }, h('span', { class: 'sr' }, `${from === 'user' ? words.you : words.them}: `), ...content);
  };

  const dots = () => h('span', { class: 'dots', 'aria-hidden': 'true' }, h('span'), h('span'), h('span'));

  function setTyping(on: boolean): void {
    clearTimeout(agentTypingTimer);
    status.replaceChildren(...(on ? [dots(), h('span', { class: 'sr' }, words.typing)] : []));
  }

  /** "<name> is typing…", in words as well as dots, until a message comes or the notice lapses. */
  function showAgentTyping(name: string): void {
    clearTimeout(agentTypingTimer);
    status.replaceChildren(dots(), h('span', { 'data-agent-typing': '' }, words.agentTyping.replace('{name}', name)));
    agentTypingTimer = setTimeout(() => status.replaceChildren(), TYPING_SHOWN_MS);
  }

  function showError(error: unknown): void {
    const code = error instanceof WidgetApiError ? error.code : undefined;
    const busy = code === 'webchat_number_busy' || code === 'webchat_address_busy' || code === 'license_sessions_limit_reached';
    alert.textContent =
      code === 'webchat_identity_refused'
        ? words.identity
        : code === 'invalid_input' && !prechat.hidden
          ? words.prechatInvalid
          : code === 'webchat_rate_limited' ? words.rateLimited : busy ? words.busy : code === 'webchat_origin_refused' || code === 'webchat_key_not_found' ? words.refused : words.failed;
  }

  function render(answer: WebchatConversation | TypingNotice): void {
    if (isTypingNotice(answer)) {
      showAgentTyping(answer.agent_name);
      return;
    }
    const view = answer;
    // A slower answer (a poll) must not undo a newer one (the message's).
    if (conversation && view.conversation_id === conversation.conversation_id && view.revision < conversation.revision) return;
    if (view.conversation_id !== conversation?.conversation_id || view.messages.length < shown) {
      log.replaceChildren();
      shown = 0;
    }
    log.querySelectorAll('.pending').forEach((pending) => pending.remove());
    const added = view.messages.slice(shown);
    for (const message of added) log.append(bubble(message));
    // The person's message has come: they are no longer typing it.
    if (added.some((message) => message.from === 'agent')) setTyping(false);
    if (view.typing) showAgentTyping(view.typing.agent_name);
    shown = view.messages.length;
    conversation = view;
    save({ id: view.conversation_id });
    const isEnded = view.status === 'ended';
    options.replaceChildren(...(isEnded ? [] : view.options.map(optionButton)));
    options.hidden = isEnded || view.options.length === 0;
    ended.hidden = !isEnded;
    attach.hidden = isEnded || !view.files;
    // A disabled field drops the focus to the page: it moves to the offer of a new conversation instead.
    const hadFocus = root.activeElement === input || root.activeElement === send;
    input.disabled = send.disabled = isEnded;
    if (isEnded && hadFocus) restart.focus();
    log.scrollTop = log.scrollHeight;
  }

  function optionButton(option: WebchatOption): HTMLButtonElement {
    const button = h('button', { type: 'button' }, option.label);
    // The label, as the user would type it: the menu takes it (docs/channels-webchat.md), and the transcript reads well.
    button.addEventListener('click', () => void say(option.label || option.id));
    return button;
  }

  /** The pre-chat form in place of the conversation, or the conversation back; its fields are the ones asked. */
  function showPrechat(asked: readonly WebchatPrechatField[]): void {
    const isAsking = asked.length > 0;
    prechat.hidden = !isAsking;
    log.hidden = form.hidden = isAsking;
    nameLabel.hidden = !asked.includes('name');
    emailLabel.hidden = !asked.includes('email');
    if (isAsking) (nameLabel.hidden ? emailField : nameField).focus();
  }

  /** A new conversation, with what is known of the visitor: the pre-chat answers, the page, the site's signed user. */
  async function start(customer?: WebchatStart['customer']): Promise<void> {
    const page = pageUrl();
    render(await api.start({ ...(customer && { customer }), ...(page && { page_url: page }), ...(identity && { identity }), visitor_id: visitorId() }));
    showPrechat([]);
    void listen();
  }

  /** The conversation kept from before a reload, else a new one (after the pre-chat form, when the number asks one); the plan's first turn runs meanwhile. */
  async function ensureConversation(): Promise<void> {
    if (conversation) return;
    setTyping(true);
    alert.textContent = '';
    try {
      const id = load().id;
      let view: WebchatConversation | undefined;
      if (id) {
        view = await api.read(id).catch((error: unknown) => {
          if (error instanceof WidgetApiError && error.status === 404 && error.code === 'session_not_found') return undefined;
          throw error;
        });
      }
      if (view) {
        render(view);
        void listen();
        return;
      }
      // What the site's signed user already tells is not asked again.
      const asked = (await api.settings()).prechat.filter((field) => !identity?.[field]);
      if (asked.length > 0) showPrechat(asked);
      else await start();
    } catch (error) {
      showError(error);
    } finally {
      setTyping(false);
    }
  }

  /** Long polls while the panel is open and the conversation goes on: the plan may speak on its own. */
  async function listen(): Promise<void> {
    if (poll) return;
    const controller = (poll = new AbortController());
    while (!controller.signal.aborted && conversation && conversation.status !== 'ended') {
      try {
        render(await api.read(conversation.conversation_id, conversation.revision, controller.signal));
      } catch (error) {
        if (controller.signal.aborted) break;
        if (error instanceof WidgetApiError && error.status >= 400 && error.status < 500 && error.status !== 429) break;
        await sleep(5000);
      }
    }
    if (poll === controller) poll = null;
  }

  async function say(text: string): Promise<void> {
    const trimmed = text.trim();
    if (!trimmed || sending || !conversation || conversation.status === 'ended') return;
    sending = true;
    send.disabled = true;
    alert.textContent = '';
    const pending = bubble({ from: 'user', text: trimmed, at: '' });
    pending.classList.add('pending');
    log.append(pending);
    log.scrollTop = log.scrollHeight;
    options.hidden = true;
    setTyping(true);
    const id = randomId();
    try {
      let view: WebchatConversation;
      try {
        view = await api.send(conversation.conversation_id, id, trimmed);
      } catch (error) {
        // Lost on the way (the network, a server restarting): sent again under the same id, it runs once.
        if (!(error instanceof WidgetApiError) || (error.status !== 0 && error.status < 500)) throw error;
        await sleep(1000);
        view = await api.send(conversation.conversation_id, id, trimmed);
      }
      render(view);
      void listen();
    } catch (error) {
      pending.remove();
      options.hidden = !conversation || conversation.options.length === 0;
      showError(error);
    } finally {
      sending = false;
      // render() disabled the input if the conversation ended; the button follows it.
      send.disabled = input.disabled;
      setTyping(false);
    }
  }

  function setOpen(open: boolean): void {
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    launcher.setAttribute('aria-label', open ? words.close : words.open);
    save({ open });
    if (open) {
      input.focus();
      void ensureConversation().then(() => void listen());
    } else {
      poll?.abort();
      poll = null;
    }
  }

  prechat.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = nameField.value.trim();
    const email = emailField.value.trim();
    const invalid = [!nameLabel.hidden && !name && nameField, !emailLabel.hidden && !EMAIL.test(email) && emailField].find(Boolean);
    if (invalid) {
      alert.textContent = words.prechatInvalid;
      invalid.focus();
      return;
    }
    alert.textContent = '';
    setTyping(true);
    start({ ...(!nameLabel.hidden && { name }), ...(!emailLabel.hidden && { email }) })
      .then(() => input.focus())
      .catch(showError)
      .finally(() => setTyping(false));
  });
  launcher.addEventListener('click', () => setOpen(panel.hidden));
  const sendFiles = fileSender({ api, words, lang, log, alert, current: () => conversation, render, listen, showError });
  takeFiles({ panel, input, attach, fileInput }, sendFiles, () => conversation !== null);
  close.addEventListener('click', () => {
    setOpen(false);
    launcher.focus();
  });
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    setOpen(false);
    launcher.focus();
  });
  let lastTyping = 0;
  input.addEventListener('input', () => {
    const now = Date.now();
    if (!input.value.trim() || !conversation || conversation.status === 'ended' || now - lastTyping < TYPING_EVERY_MS) return;
    lastTyping = now;
    // A lost notice only means the person sees no "typing" for a moment: not awaited, not retried.
    api.typing(conversation.conversation_id).catch(() => undefined);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value;
    input.value = '';
    // The message ended the user's typing: the next keystroke tells it afresh.
    lastTyping = 0;
    void say(text);
  });
  restart.addEventListener('click', () => {
    // Only an ended conversation is left: one still waiting (perhaps for a person) would stay behind as an orphan in the queue.
    if (conversation && conversation.status !== 'ended') return;
    poll?.abort();
    poll = null;
    conversation = null;
    save({ id: '' });
    void ensureConversation().then(() => input.focus());
  });

  // A reload in the middle of a conversation shows it again, open as it was.
  if (load().open) setOpen(true);
}

if (script?.dataset.key && !document.querySelector('[data-voxplan-webchat]')) {
  const start = () => mount(script);
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}
