import type { Action, ReplyOption } from './actions.ts';
import type { AnalysisResults, PathEntry, Provider, RecordingAnalysis, Session, TranscriptEntry } from './session.ts';

export type { AnalysisResults, RecordingAnalysis, TranscriptEntry };

/** A port's answer: at once when it has it (a cache hit), else a promise (docs/engine.md, "Ports that answer at once"). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What the engine asks of its host. Blocks that do I/O reach it only through these, so the
 * interpreter stays pure and is tested without a network (blocks.md, "The session").
 *
 * The ports a call asks on most of its blocks (plans, date ranges, destinations, audios, the
 * protocol, HTTP, Lua) may answer with the value itself instead of a promise: a host answering
 * from a cache (or from memory) spares the turn a promise, an async frame and a microtask per
 * block, and the interpreter goes on synchronously when no block waits. A failure may be thrown
 * or rejected alike.
 */

/** Runs an `fx` block's Lua script in a sandbox (blocks.md, "The Lua block"). */
export interface ScriptRunner {
  run(request: ScriptRequest): MaybePromise<ScriptResult>;
}

export interface ScriptRequest {
  script: string;
  /** The session variables, seen by the script as the table `vars`. */
  vars: Readonly<Record<string, unknown>>;
}

export type ScriptResult =
  | { ok: true; exit: string; set: Record<string, unknown> }
  /** `reason` is for the report and logs: a syntax or runtime error, a CPU or memory limit. */
  | { ok: false; reason: 'error' | 'cpu_limit' | 'memory_limit' | 'bad_return'; message: string };

/** Requests leaving the server (blocks.md, "Requests leaving the server"). */
export interface OutboundHttp {
  /** A failure is an `OutboundError`, thrown or rejected. */
  request(request: OutboundRequest): MaybePromise<OutboundResponse>;
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The address that answered, after any redirects. */
  url: string;
}

/** Why an outbound request failed; the engine maps every one of them to the block's `error` exit. */
export type OutboundFailure = 'timeout' | 'too_large' | 'too_many_redirects' | 'forbidden_address' | 'invalid_url' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** Where an instant falls in a date range, holidays included (the `date_range` block's exits). */
export type ScheduleStatus = 'in_hours' | 'out_of_hours' | 'holiday';

/** Answers the `date_range` block; the host reads the range and the holidays from its database. */
export interface Schedules {
  /**
   * `undefined` when the range does not exist in the tenant (the block then takes its `error` path).
   * With `holiday` (a test run "as if" on a holiday) an existing range answers `holiday`.
   */
  statusAt(tenantId: number, dateRangeId: number, instant: Date, options?: { holiday?: boolean }): MaybePromise<ScheduleStatus | undefined>;
}

/* ------------------------------------------------------------------------------------------- *
 * Ports the interpreter adds. Each is the smallest question a block needs answered; the host
 * implements them over its database, its integrations and the real clock.
 * ------------------------------------------------------------------------------------------- */

/** What the `destination` block dials or hands a chat to. */
export interface DestinationInfo {
  id: number;
  name: string;
  kind: 'voice' | 'chat';
  /** A SIP or tel URI (voice) or an https URL (chat). */
  uri: string;
}

export interface DestinationLookup {
  /** `undefined` when the destination is not in the tenant (any more). */
  find(tenantId: number, destinationId: number): MaybePromise<DestinationInfo | undefined>;
}

export interface AudioInfo {
  id: number;
  /** Where a channel adapter fetches the file (the server's own audio URL). */
  url: string;
}

export interface AudioLookup {
  find(tenantId: number, audioId: number): MaybePromise<AudioInfo | undefined>;
}

export interface OutgoingMessage {
  tenantId: number;
  channel: 'sms' | 'whatsapp';
  to: string;
  /** The number the session runs on: the sender, when the provider needs one. */
  from: string;
  text: string;
  /**
   * The turn's clock: WhatsApp's customer window is measured from it (a host's tests move it).
   * Absent: the host's own clock.
   */
  at?: Date;
}

/** A failure's `code` is the provider's own where it gave one (Meta's error code on WhatsApp). */
export type MessagingResult = { ok: true; id?: string } | { ok: false; reason: string; code?: number };

/** The `send_message` block: through the tenant's integrations or the number's WhatsApp configuration. */
export interface Messaging {
  send(message: OutgoingMessage): Promise<MessagingResult>;
}

/** A WhatsApp template by its name and language, as the tenant's synced templates name it. */
export interface TemplateRef {
  name: string;
  /** Meta's language code (`en_US`, `pt_BR`). */
  language: string;
}

export interface TemplateRequest {
  tenantId: number;
  sessionId: string;
  /** The number the session runs on: its WhatsApp account sends, its synced templates are read first. */
  from: string;
  /** The customer: `+` and their WhatsApp id, or the chat's caller. */
  to: string;
  template: TemplateRef;
  /** Each parameter's value by Meta's key (`header.1`, `body.1`, `button.0`), rendered from the block's mapping. */
  values: Readonly<Record<string, string>>;
  /**
   * How a text parameter is sent, where the mapping says it is not plain text: Meta's template
   * names only text, and a value may go as a currency (`BRL 12.50`) or a date and time instead.
   */
  types?: Readonly<Record<string, 'currency' | 'date_time'>>;
  /** The turn's clock. */
  at: Date;
  /** The turn's earlier replies, not sent yet: sent first, in order (Turn.takeReplies). */
  before?: ReadonlyArray<{ text: string; options?: ReplyOption[] }>;
}

/** A template as a customer reads it: its text with the values in, and its quick-reply buttons. */
export interface TemplateText {
  text: string;
  buttons: string[];
}

/**
 * Why a template was not sent: `template_not_found` (not among the synced ones),
 * `template_not_approved`, `not_configured`, or Meta's refusal (`template_parameter_mismatch`,
 * `provider_status_<HTTP status>`…).
 */
export type TemplateResult = ({ ok: true; id?: string } & TemplateText) | { ok: false; reason: string };

/** WhatsApp templates (the `whatsapp_template` block, a `send_message`'s fallback). */
export interface Templates {
  /** Sends the template through WhatsApp from `from` to `to`, the customer window notwithstanding. */
  send(request: TemplateRequest): Promise<TemplateResult>;
  /** The template's plain text and buttons, for a channel that cannot send templates (web chat, the simulator). */
  plainText(request: Omit<TemplateRequest, 'to' | 'at'>): Promise<TemplateResult>;
}

/** The host of a channel without templates: every template block takes `failed`. */
export const unconfiguredTemplates: Templates = {
  send: () => Promise.resolve({ ok: false, reason: 'not_configured' }),
  plainText: () => Promise.resolve({ ok: false, reason: 'not_configured' }),
};

/**
 * A provider that lets the business write freely only for a while after the customer's last
 * message (WhatsApp's 24-hour customer service window). Asked once per turn; a session whose
 * provider has no such window is always open.
 */
export interface CustomerWindow {
  isOpen(session: Readonly<Pick<Session, 'tenant_id' | 'provider' | 'channel' | 'caller' | 'called'>>, at: Date): Promise<boolean>;
}

/**
 * Why an AI request failed. Codes of the error catalogue, so reports and the console can show
 * them translated; `ai_limit_reached` is the host's cost guard refusing the call.
 */
export type AiFailureCode = 'ai_key_not_found' | 'ai_key_invalid' | 'ai_access_error' | 'ai_limit_reached';
export type AiResult<T> = ({ ok: true } & T) | { ok: false; code: AiFailureCode; message?: string };

/** `speech_detection`: fill the named variables from what the caller said. */
export interface ExtractRequest {
  tenantId: number;
  /** The session's id: the host counts its AI spending per session. */
  sessionId: string;
  transcript: string;
  variables: ReadonlyArray<{ name: string; description: string }>;
  prompt: string;
  language: string;
}

export type ChatbotProvider = 'openai' | 'sippulse';

/** One `chatbot` turn: the history so far and the caller's new input. */
export interface ChatbotRequest {
  tenantId: number;
  sessionId: string;
  provider: ChatbotProvider;
  assistantId: string;
  agentId: string;
  instructions: string;
  history: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>;
  input: string;
  channel: 'voice' | 'chat';
}

/** `continue` waits for the next input; `done` and `transfer` are the block's exits. */
export type ChatbotOutcome = 'continue' | 'done' | 'transfer';

export interface AnalyseRequest {
  tenantId: number;
  sessionId: string;
  analyses: readonly RecordingAnalysis[];
  /** The recording (voice), with the provider that made it (its file is fetched only from that provider's hosts), or the conversation text (chat). */
  source: { kind: 'audio'; url: string; provider: Provider } | { kind: 'transcript'; text: string };
  anonymization: boolean;
}

export interface AiPort {
  extract(request: ExtractRequest): Promise<AiResult<{ values: Record<string, string> }>>;
  chat(request: ChatbotRequest): Promise<AiResult<{ reply: string; outcome: ChatbotOutcome }>>;
  analyse(request: AnalyseRequest): Promise<AiResult<{ results: AnalysisResults }>>;
}

/** The AI port of a host with no AI configured: every block that needs it takes its failure exit. */
export const unconfiguredAi: AiPort = {
  extract: () => Promise.resolve({ ok: false, code: 'ai_key_not_found' }),
  chat: () => Promise.resolve({ ok: false, code: 'ai_key_not_found' }),
  analyse: () => Promise.resolve({ ok: false, code: 'ai_key_not_found' }),
};

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Protocol numbers such as `20261122-000123`: unique per tenant, so the host keeps the counter. */
export interface ProtocolGenerator {
  next(tenantId: number, at: Date): MaybePromise<string>;
}

/**
 * Told of a turn's progress while it runs, before the turn's result exists: the simulator streams
 * it, so a block that waits on a remote server shows as entered while it waits. Calls must not
 * throw, and must not change what they are given.
 */
export interface TurnObserver {
  /** The session entered a block (`exit` is null). */
  entered(entry: PathEntry): void;
  /**
   * The session left the block it was in by `entry.exit`. An entry made in the same turn is the
   * object `entered` was given, its exit now set: read an entry when told, do not keep it.
   */
  exited(entry: PathEntry): void;
  /** An action, in the order of the turn's `actions`. */
  action(action: Action): void;
}
