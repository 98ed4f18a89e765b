import path from 'node:path';
import { planLanguageOf, planLanguages, serverDefaultLanguage } from '@voxplan/contracts/voices';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Unset: SQLite in the data folder. */
  databaseUrl: string | undefined;
  publicUrl: string;
  adminUsername: string;
  adminPassword: string | undefined;
  adminEmail: string;
  /** 32 bytes as hex or base64; unset: generated into the data folder on first start. */
  masterKey: string | undefined;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  logLevel: string;
  /** Failed sign-ins allowed per user, and per address, in the window below. */
  loginMaxFailuresPerUser: number;
  loginMaxFailuresPerAddress: number;
  loginFailureWindowSeconds: number;
  trustProxy: boolean;
  /** The built console (apps/console/dist), served at /. */
  consoleDir: string;
  /** Seconds between passes of the sweeper that ends idle chats. */
  sessionSweepIntervalSeconds: number;
  /** Twilio's REST API (SMS): another address only for a proxy or a test server. */
  twilioApiUrl: string;
  /** CAMPAIGN_CLAIM_LEASE: seconds a claimed campaign call without a session stays its instance's (docs/campaigns.md). */
  campaignClaimLeaseSeconds: number;
  /** METRICS_TOKEN: the bearer token GET /metrics asks for; unset, /metrics is off (docs/metrics.md). */
  metricsToken: string | undefined;
  /** Meta's Graph API (WhatsApp Cloud API messages) and the version its paths begin with. */
  whatsappGraphUrl: string;
  whatsappGraphVersion: string;
  /** WHATSAPP_MESSAGES_PER_SECOND: a number's sends per second on this instance (Meta's throughput, docs/channels-whatsapp.md "Pace"). */
  whatsappMessagesPerSecond: number;
  /** WHATSAPP_RATE_LIMIT_BACKOFF_MS: how long a send Meta refused for throughput (130429) waits before its one retry. */
  whatsappRateLimitBackoffMs: number;
  /** WHATSAPP_TEMPLATE_SYNC_HOURS: hours between syncs of a number's message templates; 0 turns the periodic sync off. */
  whatsappTemplateSyncHours: number;
  /** The built web chat widget (apps/webchat/dist), served at /widget.js. */
  webchatDir: string;
  /** Web chat API requests allowed per minute from one address, and for one number's key. */
  webchatRatePerAddress: number;
  webchatRatePerKey: number;
  /** Web chats open at once (waiting for the visitor) on one number, and from one client address (docs/licence.md). */
  webchatMaxOpenPerNumber: number;
  webchatMaxOpenPerAddress: number;
  /** Minutes a web chat waits for the visitor's next message before its idle timeout, when the plan's is longer. */
  webchatIdleTimeoutMinutes: number;
  /** The AI providers and the cost guard (docs/ai.md). */
  ai: AiConfig;
  /** The FastAGI listener for Asterisk (docs/channels-asterisk.md): off unless AGI_PORT is set. */
  agi: AgiConfig | null;
  /** Asterisk's Manager Interface, through which Asterisk numbers place calls (docs/channels-asterisk.md): off unless AMI_HOST is set. */
  ami: AmiConfig | null;
  /** Public keys trusted besides the vendor's (comma-separated SPKI DER, base64): tests and the vendor's staging. */
  licensePublicKeys: string | undefined;
  /** A licence document activated at start when none is stored (provisioning; docs/licence.md). */
  licenseFile: string | undefined;
  /** What plans and system messages speak when neither the plan nor its tenant names a language (BCP 47 of the voices list). */
  defaultLanguage: string;
  /** Bounds on every wait for the database (docs/deployment.md, "When the database falters"). */
  database: DatabaseBounds;
  /** Milliseconds a provider's webhook (Twilio, FastAGI's turn) may take before the caller hears "not available right now". */
  providerHookDeadlineMs: number;
  /** A request that took longer than this (milliseconds) is logged as a warning. */
  slowRequestMs: number;
}

export interface DatabaseBounds {
  /** PostgreSQL: how long getting a connection may take (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** PostgreSQL: how long one statement may run, on the server (statement_timeout) and in the client (DATABASE_QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
}

export interface AgiConfig {
  port: number;
  host: string;
  /** The PJSIP endpoint a SIP destination is dialled through: `PJSIP/<endpoint>/<sip uri>`. */
  sipEndpoint: string;
  /** The dialplan context a phone-number destination is dialled in: `Local/<number>@<context>`. */
  dialContext: string;
  /** Where the PBX serves MixMonitor's files, `{file}` standing for the name; unset: no recording comes back. */
  recordingUrl: string | undefined;
  /**
   * The folder where the server sees MixMonitor's files (the PBX's monitor folder, shared); set: a
   * recording is reported only once its file is there, and an MP3 one is converted beside it.
   */
  recordingDir: string | undefined;
  /** The engine of Asterisk's speech API (`SPEECH CREATE`); unset: speech input takes the block's failure path. */
  speechEngine: string | undefined;
  /** Connections one address may hold at once; past it a new one is closed before anything is read (default DEFAULT_AGI_CONNECTIONS_PER_ADDRESS). */
  maxConnectionsPerAddress?: number;
}

export interface AmiConfig {
  host: string;
  /** The manager's TCP port (Asterisk's default 5038). */
  port: number;
  /** A user of the PBX's manager.conf with `read = call` and `write = originate`. */
  username: string;
  secret: string;
  /** The context the answered call runs in (AMD, then the session's FastAGI): the snippet of docs/channels-asterisk.md. */
  context: string;
  /** The channel the callee is dialled on, `{number}` standing for the E.164 number (`PJSIP/{number}@trunk`). */
  channel: string;
  /** How long an answered call may take to reach its FastAGI (AMD included) before it ends as failed. */
  answerWaitMs: number;
}

/** A PBX places every call from its one address: this is its concurrent calls, well above what a licence runs. */
export const DEFAULT_AGI_CONNECTIONS_PER_ADDRESS = 200;

export interface AiConfig {
  /** OpenAI's API; another address only for a proxy or a test server. */
  openaiBaseUrl: string;
  /** The second provider's OpenAI-compatible API; unset: that provider cannot be used. */
  sippulseBaseUrl: string | undefined;
  chatModel: string;
  transcriptionModel: string;
  /** The model that speaks generated audios in an AI voice. */
  speechModel: string;
  /** Milliseconds one attempt may take, and attempts after the first on 408, 429, 5xx or a lost connection. */
  timeoutMs: number;
  maxRetries: number;
  /** The cost guard: tokens one answer may use, tokens a session may use, calls a tenant may make a minute (0: no limit). */
  maxTokensPerTurn: number;
  maxTokensPerSession: number;
  callsPerTenantPerMinute: number;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got '${raw}'`);
  return value;
}

function agiConfig(env: NodeJS.ProcessEnv): AgiConfig | null {
  if (!env.AGI_PORT) return null;
  return {
    port: intFrom(env, 'AGI_PORT', 4573),
    host: env.AGI_HOST || '127.0.0.1',
    sipEndpoint: env.AGI_SIP_ENDPOINT || 'voxplan',
    dialContext: env.AGI_DIAL_CONTEXT || 'from-voxplan',
    recordingUrl: env.AGI_RECORDING_URL || undefined,
    recordingDir: env.AGI_RECORDING_DIR || undefined,
    speechEngine: env.AGI_SPEECH_ENGINE || undefined,
    maxConnectionsPerAddress: intFrom(env, 'AGI_MAX_CONNECTIONS_PER_ADDRESS', DEFAULT_AGI_CONNECTIONS_PER_ADDRESS),
  };
}

function amiConfig(env: NodeJS.ProcessEnv): AmiConfig | null {
  if (!env.AMI_HOST) return null;
  return {
    host: env.AMI_HOST,
    port: intFrom(env, 'AMI_PORT', 5038),
    username: env.AMI_USERNAME || 'voxplan',
    secret: env.AMI_SECRET || '',
    context: env.AMI_CONTEXT || 'voxplan-outbound',
    channel: env.AMI_CHANNEL || `Local/{number}@${env.AGI_DIAL_CONTEXT || 'from-voxplan'}`,
    answerWaitMs: Math.max(1, intFrom(env, 'AMI_ANSWER_WAIT_MS', 30_000)),
  };
}

/** A language of the voices list, spelled as the list does (`pt-br` → `pt-BR`); a tag it has not stops the start. */
function languageFrom(env: NodeJS.ProcessEnv, name: string): string {
  const raw = env[name];
  if (!raw) return serverDefaultLanguage;
  const language = planLanguageOf(raw);
  if (!language) throw new Error(`${name} must be one of ${planLanguages.map((entry) => entry.tag).join(', ')}; got ${raw}`);
  return language.tag;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom(env, 'PORT', 8080);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    adminUsername: env.ADMIN_USERNAME || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    adminEmail: env.ADMIN_EMAIL || 'admin@example.com',
    masterKey: env.MASTER_KEY || undefined,
    accessTokenTtlSeconds: intFrom(env, 'ACCESS_TOKEN_TTL', 15 * 60),
    refreshTokenTtlSeconds: intFrom(env, 'REFRESH_TOKEN_TTL', 30 * 24 * 3600),
    logLevel: env.LOG_LEVEL || 'info',
    loginMaxFailuresPerUser: intFrom(env, 'LOGIN_MAX_FAILURES_PER_USER', 5),
    loginMaxFailuresPerAddress: intFrom(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 20),
    loginFailureWindowSeconds: intFrom(env, 'LOGIN_FAILURE_WINDOW', 15 * 60),
    trustProxy: env.TRUST_PROXY === 'true',
    consoleDir: path.resolve(env.CONSOLE_DIR || path.join(import.meta.dirname, '../../console/dist')),
    sessionSweepIntervalSeconds: Math.max(1, intFrom(env, 'SESSION_SWEEP_INTERVAL', 10)),
    twilioApiUrl: (env.TWILIO_API_URL || 'https://api.twilio.com').replace(/\/+$/, ''),
    campaignClaimLeaseSeconds: Math.max(1, intFrom(env, 'CAMPAIGN_CLAIM_LEASE', 60)),
    metricsToken: env.METRICS_TOKEN || undefined,
    whatsappGraphUrl: (env.WHATSAPP_GRAPH_URL || 'https://graph.facebook.com').replace(/\/+$/, ''),
    whatsappGraphVersion: env.WHATSAPP_GRAPH_VERSION || 'v23.0',
    whatsappMessagesPerSecond: Math.max(1, intFrom(env, 'WHATSAPP_MESSAGES_PER_SECOND', 80)),
    whatsappRateLimitBackoffMs: Math.max(0, intFrom(env, 'WHATSAPP_RATE_LIMIT_BACKOFF_MS', 1000)),
    whatsappTemplateSyncHours: Math.max(0, intFrom(env, 'WHATSAPP_TEMPLATE_SYNC_HOURS', 3)),
    webchatDir: path.resolve(env.WEBCHAT_DIR || path.join(import.meta.dirname, '../../webchat/dist')),
    webchatRatePerAddress: intFrom(env, 'WEBCHAT_RATE_PER_ADDRESS', 120),
    webchatRatePerKey: intFrom(env, 'WEBCHAT_RATE_PER_KEY', 6000),
    webchatMaxOpenPerNumber: Math.max(1, intFrom(env, 'WEBCHAT_MAX_OPEN_PER_NUMBER', 50)),
    webchatMaxOpenPerAddress: Math.max(1, intFrom(env, 'WEBCHAT_MAX_OPEN_PER_ADDRESS', 5)),
    webchatIdleTimeoutMinutes: Math.max(1, intFrom(env, 'WEBCHAT_IDLE_TIMEOUT', 5)),
    ai: {
      openaiBaseUrl: (env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, ''),
      sippulseBaseUrl: env.SIPPULSE_BASE_URL ? env.SIPPULSE_BASE_URL.replace(/\/+$/, '') : undefined,
      chatModel: env.AI_CHAT_MODEL || 'gpt-4o-mini',
      transcriptionModel: env.AI_TRANSCRIPTION_MODEL || 'whisper-1',
      speechModel: env.AI_SPEECH_MODEL || 'gpt-4o-mini-tts',
      timeoutMs: Math.max(1, intFrom(env, 'AI_TIMEOUT_MS', 10_000)),
      maxRetries: intFrom(env, 'AI_MAX_RETRIES', 2),
      maxTokensPerTurn: Math.max(1, intFrom(env, 'AI_MAX_TOKENS_PER_TURN', 1_000)),
      maxTokensPerSession: intFrom(env, 'AI_MAX_TOKENS_PER_SESSION', 50_000),
      callsPerTenantPerMinute: intFrom(env, 'AI_CALLS_PER_TENANT_PER_MINUTE', 600),
    },
    agi: agiConfig(env),
    ami: amiConfig(env),
    licensePublicKeys: env.LICENSE_PUBLIC_KEYS || undefined,
    licenseFile: env.LICENSE_FILE ? path.resolve(env.LICENSE_FILE) : undefined,
    defaultLanguage: languageFrom(env, 'DEFAULT_LANGUAGE'),
    database: {
      connectTimeoutMs: Math.max(1, intFrom(env, 'DATABASE_CONNECT_TIMEOUT_MS', 3_000)),
      queryTimeoutMs: Math.max(1, intFrom(env, 'DATABASE_QUERY_TIMEOUT_MS', 5_000)),
    },
    providerHookDeadlineMs: Math.max(1, intFrom(env, 'PROVIDER_HOOK_DEADLINE_MS', 8_000)),
    slowRequestMs: Math.max(1, intFrom(env, 'SLOW_REQUEST_MS', 2_000)),
  };
}
