/**
 * What the engine asks of its host. Blocks that do I/O reach it only through these, so the
 * interpreter stays pure and is tested without a network (blocks.md, "The session").
 */

/** Runs an `fx` block's Lua script in a sandbox (blocks.md, "The Lua block"). */
export interface ScriptRunner {
  run(request: ScriptRequest): Promise<ScriptResult>;
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
  request(request: OutboundRequest): Promise<OutboundResponse>;
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
  /** `undefined` when the range does not exist in the tenant (the block then takes its `error` path). */
  statusAt(tenantId: number, dateRangeId: number, instant: Date): Promise<ScheduleStatus | undefined>;
}
