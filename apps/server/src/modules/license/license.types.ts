/**
 * The licence service as the rest of the server sees it (docs/licence.md): the app's context names
 * it (context.ts, `ctx.license`); license.service.ts makes it. Declared apart from the service so
 * that naming it imports nothing that imports the context back.
 */
import type { LicenseInfo, LicenseLimits } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { AuditAuthor } from '../../resources/audit.recorder.ts';

/** What the licence counts against a limit when a row is created. */
export type LimitKind = 'tenants' | 'numbers';

export interface LicenseService {
  info(): Promise<LicenseInfo>;
  /** This installation's id (read once, then kept): what a call's start needs first; the readiness check reads it. */
  installationId(): Promise<string>;
  /** Checks and stores a document (pasted or uploaded), replacing the current one. */
  activate(document: string, scope: AuditAuthor): Promise<LicenseInfo>;
  /** Reads the stored licence afresh (this instance's reading is dropped) and checks it again. */
  refresh(): Promise<LicenseInfo>;
  /** Asks the licence server (general setting license_server_url) for the licence's latest document. */
  sync(scope: AuditAuthor): Promise<LicenseInfo>;
  remove(scope: AuditAuthor): Promise<LicenseInfo>;
  /** The limits in force now: the licence's while it is active or poc, else the defaults. */
  limits(): Promise<LicenseLimits>;
  /** Refuses (403) a create past the licence's count; `db` is the create's transaction. */
  assertRoom(kind: LimitKind, db: Kysely<Database>): Promise<void>;
  /**
   * Refuses (403) a call or chat past the concurrent sessions; test sessions are not counted. Web
   * chats are counted apart, per tenant (docs/licence.md, "What a web chat counts"): anyone can open
   * one with a page's public key, and they must never take a call's place, nor another tenant's.
   * `running`: the sessions it is counted with (`countRunningLike`), when the caller read them already.
   */
  admitSession(session: { tenant_id: number; provider: string }, running?: number): Promise<void>;
}
