import type { ApiErrorBody, ErrorCode } from '@voxplan/contracts';

export const API_BASE = '/api/v1';

/** The codes that mean "the access token is stale": one shared refresh, then a retry (spec section 4). */
const REFRESHABLE: readonly string[] = ['invalid_token', 'verifying_token_error', 'token_not_found'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody['error'] | undefined,
  ) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }

  get code(): ErrorCode | undefined {
    return this.body?.code;
  }
}

export type QueryValue = string | number | boolean | Date | object | null | undefined;

/** Spec section 7: undefined dropped, dates as ISO strings, objects as JSON strings, others as strings. */
export function toQueryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (value instanceof Date) params.set(key, value.toISOString());
    else if (typeof value === 'object' && value !== null) params.set(key, JSON.stringify(value));
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
  /** The tenant of this request instead of the working one: an admin on all tenants creating a record names its tenant. */
  tenantId?: number;
}

type SessionListener = () => void;

/**
 * The one HTTP client of the console. It holds the access token in memory (the refresh token is an
 * httpOnly cookie), the language and tenant headers, and shares a single refresh among every
 * request that finds its token stale.
 */
export class ApiClient {
  private token: string | null = null;
  private refreshing: Promise<string> | null = null;
  private listeners = new Set<SessionListener>();
  /** Spec section 7: pt-BR until the user's locale is known. */
  acceptLanguage = 'pt-BR';
  tenantId: number | null = null;
  /** Called when a refresh fails: the user is signed out locally, without calling the server. */
  onSessionExpired: () => void = () => {};

  getToken(): string | null {
    return this.token;
  }

  setToken(token: string | null): void {
    this.token = token;
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async send(method: string, path: string, options: RequestOptions, token: string | null): Promise<Response> {
    const headers: Record<string, string> = { 'accept-language': this.acceptLanguage };
    if (token) headers.authorization = `Bearer ${token}`;
    const tenantId = options.tenantId ?? this.tenantId;
    if (tenantId !== null) headers['x-tenant-id'] = String(tenantId);
    // A FormData body (a file upload) sets its own multipart content type with the boundary.
    const isForm = options.body instanceof FormData;
    if (options.body !== undefined && !isForm) headers['content-type'] = 'application/json';
    return fetch(`${API_BASE}${path}${toQueryString(options.query)}`, {
      method,
      headers,
      credentials: 'include',
      body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
      signal: options.signal,
    });
  }

  private static async errorOf(response: Response): Promise<ApiError> {
    let body: ApiErrorBody['error'] | undefined;
    try {
      body = ((await response.json()) as ApiErrorBody).error;
    } catch {
      body = undefined;
    }
    return new ApiError(response.status, body);
  }

  private static async parse<T>(response: Response): Promise<T> {
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A successful response, after one shared refresh when the token was stale; an ApiError otherwise. */
  private async fetchOk(method: string, path: string, options: RequestOptions): Promise<Response> {
    const sentWith = this.token;
    const response = await this.send(method, path, options, sentWith);
    if (response.ok) return response;
    const error = await ApiClient.errorOf(response);
    if (response.status !== 401 || !error.code || !REFRESHABLE.includes(error.code)) throw error;
    // Another request may have refreshed meanwhile; otherwise join (or start) the one refresh.
    const token = this.token !== sentWith && this.token ? this.token : await this.refreshShared();
    const retried = await this.send(method, path, options, token);
    if (retried.ok) return retried;
    throw await ApiClient.errorOf(retried);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return ApiClient.parse<T>(await this.fetchOk(method, path, options));
  }

  /**
   * A file the API serves (an audio), fetched with the bearer token: elements such as <audio>
   * cannot send it, so they play an object URL of this blob instead.
   */
  async blob(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<Blob> {
    return (await this.fetchOk('GET', path, options)).blob();
  }

  /** A file the API serves as an attachment, with its content-disposition header: the name the server gives it. */
  async attachment(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<{ blob: Blob; contentDisposition: string | null }> {
    const response = await this.fetchOk('GET', path, options);
    return { blob: await response.blob(), contentDisposition: response.headers.get('content-disposition') };
  }

  /**
   * A successful response whose body the caller reads as it arrives (Server-Sent Events, a long
   * CSV export), with its headers; the same token, tenant and shared refresh as every call.
   */
  async stream(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<Response> {
    return this.fetchOk('GET', path, options);
  }

  private refreshShared(): Promise<string> {
    this.refreshing ??= this.refresh()
      .catch((error: unknown) => {
        this.setToken(null);
        this.onSessionExpired();
        throw error;
      })
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** Trades the refresh cookie for a new access token. */
  async refresh(): Promise<string> {
    const response = await this.send('GET', '/refresh', {}, null);
    if (!response.ok) throw await ApiClient.errorOf(response);
    const { token } = await ApiClient.parse<{ token: string }>(response);
    this.setToken(token);
    return token;
  }

  async login(username: string, password: string): Promise<void> {
    const response = await this.send('POST', '/login', { body: { username, password } }, null);
    if (!response.ok) throw await ApiClient.errorOf(response);
    this.setToken((await ApiClient.parse<{ token: string }>(response)).token);
  }

  async logout(): Promise<void> {
    try {
      await this.send('POST', '/logout', {}, this.token);
    } finally {
      this.setToken(null);
    }
  }

  get<T>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  patch<T>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('DELETE', path, { ...options, body });
  }
}

export const api = new ApiClient();
