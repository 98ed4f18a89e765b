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

/** The widget's API (docs/channels-webchat.md), for one number's key, on the server that served the script. */
export class WebchatApi {
  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly lang: string,
  ) {}

  /** The API's answer when it is a success, else its error. */
  private async request(method: 'GET' | 'POST', path: string, body?: object, signal?: AbortSignal): Promise<Response> {
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
    if (response.ok) return response;
    const answer = (await response.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
    throw new WidgetApiError(response.status, answer?.error?.code);
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

  /** The user is typing: a person holding the chat sees it (docs/channels-webchat.md). */
  async typing(id: string): Promise<void> {
    await this.request('POST', `/conversations/${encodeURIComponent(id)}/typing`, {});
  }
}
