import type { AuditAction } from '@voxplan/contracts';
import type { Generated } from 'kysely';

/** Times are stored as ISO 8601 UTC text on both dialects, so they compare and sort alike. */
type Time = string;

export interface TenantTable {
  id: Generated<number>;
  created_time: Time;
  name: string;
  integrations: string | null;
  /** BCP 47 of the voices list, '' for the server's (migration 0016; the database's default). */
  language: Generated<string>;
  /** ISO 3166-1 alpha-2 that reads national numbers, '' for the server's (migration 0031). */
  country: Generated<string>;
  /** IANA time zone of the tenant's schedules, '' for the server's (migration 0031). */
  time_zone: Generated<string>;
}

export interface UserTable {
  id: Generated<number>;
  created_time: Time;
  updated_time: Time;
  username: string;
  email: string;
  name: string;
  password: string;
}

export interface UserRoleTable {
  id: Generated<number>;
  user_id: number;
  role: 'admin' | 'user' | 'guest';
  tenant_id: number | null;
}

export interface AuthSessionTable {
  id: string;
  user_id: number;
  created_time: Time;
  expires_time: Time;
  revoked_time: Time | null;
  source_ip: string | null;
  user_agent: string | null;
}

export interface RefreshTokenTable {
  /** SHA-256 of the token: the token itself is only ever in the client's cookie. */
  id: string;
  session_id: string;
  created_time: Time;
  used_time: Time | null;
}

export interface LoginFailureTable {
  id: Generated<number>;
  key: string;
  created_time: Time;
}

export interface ApiKeyTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  secret_hash: string;
  created_time: Time;
  last_used_time: Time | null;
}

export interface ConfigurationTable {
  id: Generated<number>;
  created_time: Time;
  updated_time: Time;
  name: string;
  value: string;
  category: string;
  description: string;
  type: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  created_time: Time;
  user_id: number | null;
  username: string | null;
  tenant_id: number | null;
  action: AuditAction;
  entity: string;
  entity_id: string | null;
  before: string | null;
  after: string | null;
  source_ip: string | null;
}

export interface DestinationTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  name: string;
  kind: 'voice' | 'chat';
  /** '' for a chat queue. */
  uri: string;
  description: string;
  /** Chat destinations: a URL (an outside desk) or a queue of the tenant's users; null for voice ones (migration 0019). */
  chat_target: 'url' | 'queue' | null;
  /** A queue's message to the customer when a chat is resolved; '' says the default (migration 0024). */
  closing_message_en: Generated<string>;
  closing_message_pt: Generated<string>;
}

/** A tenant's saved replies: an agent picks one with `/` in the message box (migration 0024). */
export interface SavedReplyTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  text: string;
  created_time: string;
  updated_time: string;
}

/** A campaign (migration 0032, docs/campaigns.md). */
export interface CampaignTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  plan_id: number;
  number_id: number;
  date_range_id: number | null;
  calls_per_second: number;
  max_concurrent: number;
  /** JSON CampaignRetries. */
  retries: string;
  /** 0 or 1. */
  machine_detection: number;
  status: 'draft' | 'running' | 'paused' | 'completed' | 'cancelled';
  started_time: string | null;
  finished_time: string | null;
  /** The campaign's pacing slot; '' before the first call. */
  next_dial_at: Generated<string>;
  created_time: string;
  updated_time: string;
}

/** One contact of a campaign, and its queue entry. */
export interface CampaignContactTable {
  id: Generated<number>;
  campaign_id: number;
  tenant_id: number;
  line: number;
  phone: string;
  name: string;
  time_zone: string | null;
  /** JSON map of text values. */
  variables: string;
  /** 'staged' while its upload is under way. */
  state: 'staged' | 'pending' | 'in_progress' | 'done';
  last_outcome: string | null;
  attempts: number;
  /** JSON: retries used per outcome. */
  retries_used: string;
  last_session_id: string | null;
  last_attempt_time: string | null;
  next_attempt_time: string | null;
  claimed_at: string | null;
  lease_until: string | null;
  import_token: string | null;
  created_time: string;
  updated_time: string;
}

export interface CampaignInvalidRowTable {
  id: Generated<number>;
  campaign_id: number;
  tenant_id: number;
  line: number;
  reason: string;
  value: string;
  import_token: string | null;
  created_time: string;
}

/** A provider account's pacing slot, shared by its campaigns. */
export interface CampaignPacingTable {
  account: string;
  next_dial_at: string;
}

/** A number a tenant never dials (migration 0030): E.164, once per tenant. */
export interface DoNotCallTable {
  id: Generated<number>;
  tenant_id: number;
  number: string;
  reason: Generated<string>;
  /** The name of who added it, kept as it was then. */
  added_by: Generated<string>;
  created_time: string;
  updated_time: string;
}

/** The users who serve a chat queue destination. */
export interface DestinationAgentTable {
  destination_id: number;
  user_id: number;
}

export interface AgentPresenceTable {
  user_id: number;
  tenant_id: number;
  status: 'online' | 'away' | 'offline';
  updated_at: string;
}

/** A chat held by a person: an agent of a queue, or an outside desk (docs/conversations.md). */
export interface ConversationTable {
  id: Generated<number>;
  tenant_id: number;
  session_id: string;
  destination_id: number | null;
  agent_id: number | null;
  status: 'waiting' | 'open' | 'closed';
  outcome: 'resolved' | 'back_to_plan' | 'no_answer' | 'busy' | 'transferred' | 'abandoned' | null;
  channel: string;
  provider: string;
  caller: string;
  protocol: string;
  created_at: string;
  taken_at: string | null;
  closed_at: string | null;
  last_message_at: string | null;
  unread_for_agent: Generated<number>;
  deadline_at: string | null;
  handoff_revision: number;
  reply_token_hash: string | null;
  /** A transfer's deadline: not accepted by then, it goes back (migration 0025); null once accepted. */
  transfer_deadline_at: string | null;
  /** The agent who transferred it, whom it goes back to while online. */
  transferred_from: number | null;
  /** When the web chat's widget last asked for it while open (migration 0024): null elsewhere. */
  customer_seen_at: Generated<string | null>;
}

export interface ConversationMessageTable {
  id: Generated<number>;
  conversation_id: number;
  /** `note`: an agent's private note, never sent to the customer (migration 0024 needs no column for it). */
  author: 'customer' | 'agent' | 'bot' | 'system' | 'note';
  agent_id: number | null;
  text: string;
  /** JSON: a link { url, content_type, name }, or an uploaded file { attachment_id, content_type, name, size }. */
  attachment: string | null;
  external_id: string | null;
  /** JSON `{name, language}`: the WhatsApp template this agent's message was (migration 0036); null otherwise. */
  template: string | null;
  created_at: string;
}

export interface ConversationAttachmentTable {
  id: Generated<number>;
  tenant_id: number;
  conversation_id: number;
  name: string;
  content_type: string;
  size: number;
  data: Buffer;
  created_at: string;
}

export interface AclTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  name: string;
  address: string;
  description: string;
}

export interface HolidayTable {
  id: Generated<number>;
  created_time: Time;
  updated_time: Time;
  name: string;
  date: string;
  /** 0 or 1: SQLite has no boolean type, so both dialects store an integer. */
  recurring: number;
  level: 'national' | 'state' | 'city';
  country: string;
  state: string;
  city: string;
}

export interface DateRangeTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  name: string;
  time_zone: string;
  /** JSON: [{day, start, end}]. */
  intervals: string;
  /** JSON: [{name, initial_date, final_date}]. */
  exceptions: string;
  country: string;
  state: string;
  city: string;
}

export interface VisualPlanTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  name: string;
  description: string;
  /** JSON of the draft: {format_version, settings, nodes, edges}. */
  document: string;
  version: number;
  published_version: number | null;
  updated_by: number | null;
  /** The running rollout (migration 0040), copied from plan_rollouts for the choice; null when none runs. */
  rollout_version: number | null;
  rollout_share: number | null;
  /** JSON array of contact keys. */
  rollout_pinned: string | null;
}

/** A staged rollout of a plan's version (migration 0040, docs/rollouts.md). */
export interface PlanRolloutTable {
  id: Generated<number>;
  tenant_id: number;
  plan_id: number;
  base_version: number;
  candidate_version: number;
  share: number;
  /** JSON array of contact keys. */
  pinned: string;
  /** JSON { goal_worse, max_failure_rate } or null. */
  auto_rollback: string | null;
  state: 'running' | 'promoted' | 'rolled_back';
  ended_reason: 'promoted' | 'rolled_back' | 'auto_rollback' | null;
  ended_note: string | null;
  started_time: Time;
  started_by: number | null;
  ended_time: Time | null;
  ended_by: number | null;
  /** When the automatic rollback's rule is next checked (migration 0041); null: now. Generated: starts leave it out. */
  auto_rollback_due_time: Generated<Time | null>;
}

/** A draft as one save left it (migration 0020): the versions drawer's saved drafts. */
export interface VisualPlanDraftTable {
  id: Generated<number>;
  tenant_id: number;
  plan_id: number;
  version: number;
  /** JSON, as VisualPlanTable.document. */
  document: string;
  saved_time: Time;
  saved_by: number | null;
}

export interface VisualPlanVersionTable {
  id: Generated<number>;
  tenant_id: number;
  plan_id: number;
  version: number;
  /** The plan's name when this version was published. */
  name: string;
  /** JSON, as VisualPlanTable.document. */
  document: string;
  published_time: Time;
  published_by: number | null;
}

export interface PlanReferenceTable {
  id: Generated<number>;
  tenant_id: number;
  plan_id: number;
  kind: 'destination' | 'audio' | 'date_range' | 'plan';
  ref_id: number;
}

export interface AudioTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  name: string;
  source: 'upload' | 'tts';
  language: string;
  voice: string;
  text: string;
  format: 'wav' | 'mp3' | 'ogg';
  mime_type: string;
  size: number;
  duration_ms: number | null;
  status: 'generating' | 'ready' | 'failed';
  progress: number;
}

export interface AudioDataTable {
  audio_id: number;
  variant: 'original' | 'telephony';
  mime_type: string;
  data: Buffer;
}

export interface WebhookDeliveryTable {
  id: Generated<number>;
  tenant_id: number;
  plan_id: number;
  url: string;
  // chat.message: an outside desk's event (docs/handoff.md), queued and retried alike.
  event: 'session.started' | 'session.ended' | 'chat.message' | 'outbound_call.ended';
  /** The event's data, as JSON text. */
  payload: string;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_time: Time;
  lease_until: Time | null;
  last_error: string | null;
  last_status: number | null;
  created_time: Time;
  delivered_time: Time | null;
}

export interface WebhookSecretTable {
  tenant_id: number;
  /** Encrypted with the master key (lib/keys.ts). */
  secret: string;
  created_time: Time;
}

export interface SessionTable {
  id: string;
  tenant_id: number;
  plan_id: number;
  plan_version: number;
  /** 0 or 1. */
  is_draft: number;
  channel: 'voice' | 'chat';
  provider: string;
  direction: 'inbound' | 'outbound';
  caller: string;
  called: string;
  source_ip: string | null;
  status: 'waiting' | 'ended';
  /** JSON of the engine's Session. */
  state: string;
  revision: number;
  /** 0 or 1. */
  is_test: number;
  last_activity_time: Time;
  timeout_time: Time | null;
  created_time: Time;
  updated_time: Time;
  ended_time: Time | null;
  /** JSON of who the customer is (contracts' ChatCustomer), as the channel told it; null: unknown. */
  customer: string | null;
}

export interface SessionEventTable {
  id: Generated<number>;
  session_id: string;
  event_id: string;
  revision: number;
  /** JSON of the turn's stored outcome. */
  outcome: string;
  created_time: Time;
}

/** A plan a session entered through `call_plan` (migration 0042), one row per plan; none for a session that called no plan. */
export interface CallReportPlanTable {
  report_id: number;
  tenant_id: number;
  plan_id: number;
  plan_version: number;
  start_time: string;
  goal: string | null;
}

export interface CallReportTable {
  id: Generated<number>;
  tenant_id: number;
  session_id: string;
  plan_id: number;
  plan_name: string;
  plan_version: number;
  channel: string;
  provider: string;
  direction: string;
  caller: string;
  called: string;
  source_ip: string | null;
  protocol: string | null;
  last_node_plan_id: number | null;
  last_node_id: string | null;
  last_node_type: string | null;
  /** JSON: the path of blocks entered. */
  nodes: string;
  /** JSON: key entries per menu. */
  pressed_digits: string;
  hangup_cause: string | null;
  disposition: string | null;
  dial_status: string | null;
  /** JSON or null. */
  failure: string | null;
  /** JSON or null. */
  recording: string | null;
  /** JSON. */
  variables: string;
  /** 0 or 1. */
  is_test: number;
  start_time: Time;
  end_time: Time;
  duration_s: number;
  created_time: Time;
  updated_time: Time;
  /** The campaign that placed the call (migration 0026); null for every other. Generated: inserts leave it out. */
  campaign_id: Generated<number | null>;
  /** The name of the first goal the session reached (migration 0041); null when none. */
  goal: string | null;
}

/** A call the plan places (migration 0026, docs/outbound.md), from its request to its outcome. */
export interface OutboundCallTable {
  session_id: string;
  tenant_id: number;
  number_id: number;
  provider: string;
  plan_id: number;
  plan_version: number;
  plan_name: string;
  /** The tenant's number, E.164. */
  caller: string;
  /** The callee, E.164. */
  called: string;
  /** JSON map of text values. */
  variables: string;
  /** 0 or 1. */
  machine_detection: number;
  ring_timeout_s: number;
  status_url: string | null;
  campaign_id: number | null;
  state: 'queued' | 'dialing' | 'in_progress' | 'ended';
  dial_status: string | null;
  answered_by: string | null;
  provider_call_id: string | null;
  created_time: Time;
  updated_time: Time;
  ended_time: Time | null;
}

export interface ProtocolCounterTable {
  id: Generated<number>;
  tenant_id: number;
  /** YYYYMMDD, UTC. */
  day: string;
  value: number;
}

export interface NumberTable {
  id: Generated<number>;
  tenant_id: number;
  created_time: Time;
  updated_time: Time;
  /** E.164; a web chat's name (provider webchat). */
  number: string;
  /** Generated: the column has a default (''), so an insert may leave it out. */
  description: Generated<string>;
  provider: 'twilio' | 'asterisk' | 'whatsapp' | 'webchat';
  voice_plan_id: number | null;
  chat_plan_id: number | null;
  whatsapp_verify_token: Generated<string>;
  /** Encrypted with the master key (lib/keys.ts); null when none was given. */
  whatsapp_token: string | null;
  whatsapp_phone_number_id: Generated<string>;
  /** The Meta app's secret that signs deliveries, encrypted with the master key; null when none was given. */
  whatsapp_app_secret: string | null;
  /** The web chat widget's public key (provider webchat); null otherwise. */
  webchat_key: string | null;
  /** JSON list of the origins allowed to use the widget. */
  webchat_origins: Generated<string>;
  /** JSON list of the fields the widget asks before the first message ('name', 'email'). */
  webchat_prechat: Generated<string>;
  /** The key that signs the site's user ids, encrypted with the master key; null: none yet. */
  webchat_identity_secret: string | null;
  /** The WhatsApp Business Account whose templates the number sends (migration 0033); '' when not given. */
  whatsapp_business_account_id: Generated<string>;
  /** Meta's messaging limit tier: unique customers a day outside the window (250, 2000, 10000, 100000); null: unlimited. */
  whatsapp_daily_limit: number | null;
  /** When the number's templates are next synced (migration 0034); null: due now. */
  whatsapp_templates_due_at: string | null;
}

/** A WhatsApp message of a number's conversations (migration 0010, channels/whatsapp). */
export interface WhatsappMessageTable {
  /** Meta's message id. */
  id: string;
  tenant_id: number;
  number_id: number;
  direction: 'inbound' | 'outbound';
  /** The user's wa_id (digits). */
  contact: string;
  session_id: string | null;
  /** inbound: received; outbound: accepted, sent, delivered, read, failed. */
  status: string;
  error: Generated<string>;
  /** Meta's error code of a failure (docs/channels-whatsapp.md, "Meta's errors"); null otherwise. */
  error_code: number | null;
  /** The template the message was, by name; null for a free-form message. */
  template_name: string | null;
  sent_time: Time;
  updated_time: Time;
}

/** A WhatsApp message template of a number, synced from Meta (migration 0033, channels/whatsapp/templates.ts). */
export interface WhatsappTemplateTable {
  id: Generated<number>;
  tenant_id: number;
  number_id: number;
  meta_id: string;
  name: string;
  /** Meta's language code (pt_BR, en_US). */
  language: string;
  category: 'marketing' | 'utility' | 'authentication';
  /** Meta's status, lower-case: approved, pending, rejected, paused, disabled, in_appeal… */
  status: string;
  /** Meta's components, JSON. */
  components: string;
  rejected_reason: Generated<string>;
  synced_time: Time;
}

export interface NumberRuleTable {
  id: Generated<number>;
  number_id: number;
  position: number;
  date_range_id: number | null;
  /** JSON: a list of caller prefixes. */
  caller_prefixes: string;
  plan_id: number;
}

/**
 * The statistics' rollups (migration 0012, db/stats-rollups.ts): counters per tenant,
 * plan the sessions started in and UTC hour of their start, raised as each report is first stored.
 * `hour` counts hours since 1970-01-01T00:00Z. PostgreSQL answers bigint sums as text.
 */
export interface StatsSessionTable {
  tenant_id: number;
  hour: number;
  plan_id: number;
  sessions: number;
  voice: number;
  chat: number;
  routed: number;
  retained: number;
  abandoned: number;
  failed: number;
  expired: number;
  missed: number;
  duration_s: number | string;
}

/** The same counters per tenant and hour alone: a period of every plan reads a twentieth of the rows with twenty plans. */
export type StatsTenantTable = Omit<StatsSessionTable, 'plan_id'>;

/** Blocks entered (once per entry) and where sessions ended, per block of the plan or of a plan it called. */
export interface StatsNodeTable {
  plan_id: number;
  hour: number;
  tenant_id: number;
  node_plan_id: number;
  node_id: string;
  entered: number;
  ended: number;
}

/** Keys pressed per menu block. */
export interface StatsDigitsTable {
  plan_id: number;
  hour: number;
  tenant_id: number;
  node_plan_id: number;
  node_id: string;
  digits: string;
  count: number;
}

/** stats_nodes and stats_digits again per UTC day (days since 1970): the whole days of a long period. */
export type StatsNodeDayTable = Omit<StatsNodeTable, 'hour'> & { day: number };
export type StatsDigitsDayTable = Omit<StatsDigitsTable, 'hour'> & { day: number };

/** The licence, one row at most (id 1): migration 0014, modules/license. */
export interface LicenseTable {
  id: number;
  document: string;
  activated_time: string;
  activated_by: string | null;
  last_sync_time: string | null;
  last_sync_result: 'renewed' | 'unchanged' | 'blocked' | 'canceled' | 'error' | null;
}

/** The installation's id, made once per database (migration 0016): what a licence for several instances names. */
export interface InstallationTable {
  id: number;
  installation_id: string;
  created_time: string;
}

/** Requests a tenant made to AI providers in one minute (minutes since 1970, UTC): migration 0015, modules/ai/cost-guard.ts. */
export interface AiTenantMinuteTable {
  tenant_id: number;
  minute: number;
  calls: number;
}

/** Tokens a session's AI answers used: migration 0015, modules/ai/cost-guard.ts. */
export interface AiSessionTokensTable {
  session_id: string;
  tokens: number;
  updated_time: string;
}

/** A call or chat the licence refused; kept for the dashboard's window (migration 0018). */
export interface SessionRefusalTable {
  tenant_id: number;
  provider: string;
  reason: string;
  created_time: string;
}

export interface Database {
  tenants: TenantTable;
  users: UserTable;
  user_roles: UserRoleTable;
  auth_sessions: AuthSessionTable;
  refresh_tokens: RefreshTokenTable;
  login_failures: LoginFailureTable;
  api_keys: ApiKeyTable;
  configurations: ConfigurationTable;
  audit_log: AuditLogTable;
  destinations: DestinationTable;
  destination_agents: DestinationAgentTable;
  agent_presence: AgentPresenceTable;
  conversations: ConversationTable;
  conversation_messages: ConversationMessageTable;
  conversation_attachments: ConversationAttachmentTable;
  saved_replies: SavedReplyTable;
  do_not_call: DoNotCallTable;
  campaigns: CampaignTable;
  campaign_contacts: CampaignContactTable;
  campaign_invalid_rows: CampaignInvalidRowTable;
  campaign_pacing: CampaignPacingTable;
  acl: AclTable;
  holidays: HolidayTable;
  date_ranges: DateRangeTable;
  visual_plans: VisualPlanTable;
  visual_plan_versions: VisualPlanVersionTable;
  visual_plan_drafts: VisualPlanDraftTable;
  plan_rollouts: PlanRolloutTable;
  plan_references: PlanReferenceTable;
  audios: AudioTable;
  audio_data: AudioDataTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_secrets: WebhookSecretTable;
  sessions: SessionTable;
  session_events: SessionEventTable;
  call_reports: CallReportTable;
  call_report_plans: CallReportPlanTable;
  outbound_calls: OutboundCallTable;
  license: LicenseTable;
  installation: InstallationTable;
  ai_tenant_minutes: AiTenantMinuteTable;
  ai_session_tokens: AiSessionTokensTable;
  session_refusals: SessionRefusalTable;
  protocol_counters: ProtocolCounterTable;
  numbers: NumberTable;
  number_rules: NumberRuleTable;
  whatsapp_messages: WhatsappMessageTable;
  whatsapp_templates: WhatsappTemplateTable;
  stats_tenants: StatsTenantTable;
  stats_sessions: StatsSessionTable;
  stats_nodes: StatsNodeTable;
  stats_digits: StatsDigitsTable;
  stats_nodes_days: StatsNodeDayTable;
  stats_digits_days: StatsDigitsDayTable;
}

export type TableName = keyof Database;
