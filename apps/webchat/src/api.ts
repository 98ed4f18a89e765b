import type { WebchatConversation, WebchatSettings, WebchatStart } from '@voxplan/contracts';

/** An answer of the API that is not a conversation: its catalogue code (docs/errors.md), or none when the browser hid it. */
export class WidgetApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(code ?? `HTTP ${status}`);
  }
}

/** Tries after a 503 with Retry-After, and the longest wait obeyed (a larger Retry-After waits this long). */
const MAX_RETRIES = 3;
const MAX_RETRY_WAIT_S = 10;

/** Retry-After's seconds (its date form is not sent by the server), or undefined when it names none. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** Waits `ms`, or rejects as soon as `signal` aborts (a long poll the widget gave up). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

/** The widget's API (docs/channels-webchat.md), for one number's key, on the server that served the script. */
export class WebchatApi {
  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly lang: string,
  ) {}

  /**
   * The API's answer when it is a success, else its error. A `503` with Retry-After (the server's
   * database is briefly away: `database_unavailable`) is tried again after the wait it names, at
   * most MAX_RETRIES times and never waiting past MAX_RETRY_WAIT_S; a message keeps its id, so a
   * retry is never sent twice.
   */
  private async request(method: 'GET' | 'POST', path: string, body?: object, signal?: AbortSignal): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.requestOnce(method, path, body, signal);
      const wait = response.status === 503 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
      if (wait === undefined || attempt >= MAX_RETRIES) return this.answerOf(response);
      await sleep(Math.min(wait, MAX_RETRY_WAIT_S) * 1000, signal);
    }
  }

  private async answerOf(response: Response): Promise<Response> {
    if (response.ok) return response;
    const answer = (await response.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
    throw new WidgetApiError(response.status, answer?.error?.code);
  }

  private async requestOnce(method: 'GET' | 'POST', path: string, body?: object, signal?: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.base}/api/v1/webchat/${encodeURIComponent(this.key)}${path}`, {
        method,
        headers: { 'accept-language': this.lang, ...(body && { 'content-type': 'application/json' }) },
        ...(body && { body: JSON.stringify(body) }),
        credentials: 'omit',
        ...(signal && { signal }),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      // A refused origin's answer is hidden by the browser: it looks like a network failure.
      throw new WidgetApiError(0, undefined);
    }
    return response;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: object, signal?: AbortSignal): Promise<WebchatConversation> {
    return (await (await this.request(method, path, body, signal)).json()) as WebchatConversation;
  }

  /** What the number asks before a conversation starts. */
  async settings(): Promise<WebchatSettings> {
    return (await (await this.request('GET', '/settings')).json()) as WebchatSettings;
  }

  /** A new conversation, told who the visitor is (the pre-chat answers, the page, the site's signed user). */
  start(visitor: WebchatStart): Promise<WebchatConversation> {
    return this.call('POST', '/conversations', visitor);
  }

  /** The conversation; with `after`, a long poll that answers once a turn past that revision is stored. */
  read(id: string, after?: number, signal?: AbortSignal): Promise<WebchatConversation> {
    const query = after === undefined ? '' : `?after=${after}&wait=25`;
    return this.call('GET', `/conversations/${encodeURIComponent(id)}${query}`, undefined, signal);
  }

  send(id: string, messageId: string, text: string): Promise<WebchatConversation> {
    return this.call('POST', `/conversations/${encodeURIComponent(id)}/messages`, { id: messageId, text });
  }

  /**
   * The visitor's file (multipart), its progress told as it goes up: by XMLHttpRequest, since fetch
   * tells none. A 503 with Retry-After is tried again as the other calls are; the id makes any retry
   * store it once.
   */
  async upload(id: string, messageId: string, file: File, onProgress: (fraction: number) => void): Promise<WebchatConversation> {
    for (let attempt = 0; ; attempt++) {
      const answer = await this.uploadOnce(id, messageId, file, onProgress);
      const wait = answer.status === 503 ? retryAfterSeconds(answer.retryAfter) : undefined;
      if (answer.status >= 200 && answer.status < 300) return JSON.parse(answer.body) as WebchatConversation;
      if (wait === undefined || attempt >= MAX_RETRIES) {
        let code: string | undefined;
        try {
          code = (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
        } catch {
          // No JSON: a network failure, or an answer the browser hid.
        }
        throw new WidgetApiError(answer.status, code);
      }
      await sleep(Math.min(wait, MAX_RETRY_WAIT_S) * 1000);
    }
  }

  private uploadOnce(id: string, messageId: string, file: File, onProgress: (fraction: number) => void): Promise<{ status: number; body: string; retryAfter: string | null }> {
    const form = new FormData();
    form.append('id', messageId);
    form.append('file', file, file.name);
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open('POST', `${this.base}/api/v1/webchat/${encodeURIComponent(this.key)}/conversations/${encodeURIComponent(id)}/files`);
      request.setRequestHeader('accept-language', this.lang);
      request.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      request.addEventListener('load', () => resolve({ status: request.status, body: request.responseText, retryAfter: request.getResponseHeader('retry-after') }));
      // A network failure (or a refused origin's answer, hidden by the browser).
      const failed = () => resolve({ status: 0, body: '', retryAfter: null });
      request.addEventListener('error', failed);
      request.addEventListener('abort', failed);
      request.send(form);
    });
  }

  /** The user is typing: a person holding the chat sees it (docs/channels-webchat.md). */
  async typing(id: string): Promise<void> {
    await this.request('POST', `/conversations/${encodeURIComponent(id)}/typing`, {});
  }
}
