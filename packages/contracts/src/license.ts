import { z } from 'zod';
import { timestampSchema } from './common.ts';

/**
 * The licence (issue 20, docs/licence.md): a document the vendor signs with Ed25519, bound to an
 * installation (or, as first issued, one server's hardware id), granting limits. `/api/v1/license` reads and changes it (administrators).
 */
export const licenseStatuses = ['active', 'blocked', 'canceled', 'expired', 'poc'] as const;
export type LicenseStatus = (typeof licenseStatuses)[number];
/** What the screen shows: the licence's status as it stands now (`expired` once its date has passed), or none. */
export const licenseStates = [...licenseStatuses, 'without_license'] as const;
export type LicenseState = (typeof licenseStates)[number];

/** What a licence grants; without one (or blocked, canceled, expired) the defaults apply. */
export const licenseLimitsSchema = z.object({
  /** Calls and chats running at once, every tenant together (the simulator's test sessions are not counted). */
  concurrent_sessions: z.number().int().positive(),
  tenants: z.number().int().positive(),
  numbers: z.number().int().positive(),
});
export type LicenseLimits = z.infer<typeof licenseLimitsSchema>;

/** The limits without a licence (docs/licence.md). */
export const defaultLicenseLimits: LicenseLimits = { concurrent_sessions: 10, tenants: 5, numbers: 10 };

/** The signed payload: what the vendor's tool issues (`npm run licence -- issue …`). */
export const licensePayloadSchema = z.strictObject({
  format: z.literal(1),
  serial: z.string().regex(/^[A-Z0-9][A-Z0-9-]{3,63}$/),
  client: z.string().trim().min(1).max(200),
  product: z.string().trim().min(1).max(100),
  status: z.enum(licenseStatuses),
  issued_at: timestampSchema,
  /** Null: never expires. */
  expires_at: timestampSchema.nullable(),
  /**
   * What it covers (docs/licence.md): an installation, every instance on its database whatever
   * machine it runs on (`installation_id`, the licence screen shows it), or, as licences were first
   * issued, one machine (`hardware_id`, the id System info shows). One of the two is named.
   */
  installation_id: z.string().min(1).max(200).optional(),
  hardware_id: z.string().min(1).max(200).optional(),
  limits: licenseLimitsSchema,
});
export type LicensePayload = z.infer<typeof licensePayloadSchema>;

export const licenseSyncResults = ['renewed', 'unchanged', 'blocked', 'canceled', 'error'] as const;

/** `GET /license` and the answer of every change. */
export const licenseInfoSchema = z.object({
  state: z.enum(licenseStates),
  /** The stored licence's fields; null without one. */
  license: licensePayloadSchema.omit({ format: true }).nullable(),
  /**
   * Why a stored licence is not in force although it is there: it is for another server (the
   * database moved), or its signature is not trusted any more. The state is then without_license.
   */
  problem: z.enum(['hardware_mismatch', 'installation_mismatch', 'invalid_signature']).nullable(),
  /** The limits in force now: the licence's while it is active or poc, else the defaults. */
  limits: licenseLimitsSchema,
  default_limits: licenseLimitsSchema,
  usage: licenseLimitsSchema.extend({ concurrent_sessions: z.number().int().nonnegative(), tenants: z.number().int().nonnegative(), numbers: z.number().int().nonnegative() }),
  /** This server's hardware id. */
  hardware_id: z.string(),
  /** This installation's id, the same on every instance on its database: what the vendor names in its licence. */
  installation_id: z.string(),
  activated_time: timestampSchema.nullable(),
  activated_by: z.string().nullable(),
  last_sync_time: timestampSchema.nullable(),
  last_sync_result: z.enum(licenseSyncResults).nullable(),
  /** A licence server URL is set (general setting `license_server_url`): sync can be used. */
  sync_configured: z.boolean(),
});
export type LicenseInfo = z.infer<typeof licenseInfoSchema>;

/** `POST /license`: the document as issued (pasted, or read from the uploaded file), at most 16 KB. */
export const licenseActivateSchema = z.strictObject({ license: z.string().trim().min(1).max(16_384) });
export type LicenseActivate = z.infer<typeof licenseActivateSchema>;
