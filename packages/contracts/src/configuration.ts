import { z } from 'zod';
import { audioMaxSizeDefaultMb } from './audio.ts';
import { idSchema, timestampSchema } from './common.ts';

export const systemSettingType = 'sistema';

export const configurationSchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  value: z.string(),
  category: z.string(),
  description: z.string(),
  type: z.string(),
});
export type Configuration = z.infer<typeof configurationSchema>;

export const configurationCreateSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9_.-]+$/),
    value: z.string().max(10_000).default(''),
    category: z.string().trim().max(100).default('general'),
    description: z.string().max(500).default(''),
    type: z.string().trim().min(1).max(50).default('custom'),
  })
  .strict();
export const configurationUpdateSchema = z
  .object({
    value: z.string().max(10_000),
    category: z.string().trim().max(100),
    description: z.string().max(500),
  })
  .partial()
  .strict();
export type ConfigurationCreate = z.input<typeof configurationCreateSchema>;
export type ConfigurationUpdate = z.input<typeof configurationUpdateSchema>;

/** What a system setting holds: a number in a range, on/off, free text, or an http(s) address (empty: off). */
export type SettingKind = { kind: 'number'; min: number; max: number } | { kind: 'boolean' } | { kind: 'text' } | { kind: 'url' };

export type SystemSettingDefinition = SettingKind & {
  /** The value a fresh installation starts with, and what readers use while the stored one is unusable. */
  default: string;
  category: string;
  /** Seeded into the description column; the console shows the translation under `descriptionKey`. */
  description: string;
  /** In the console's screens catalogue (en.screens.json, pt.screens.json). */
  descriptionKey: string;
};

/**
 * The settings every installation brings (type "sistema"): the one list the seeding, the API's
 * validation, the server's readers and the console's form all go by.
 */
export const systemSettings = {
  audio_max_size_mb: {
    kind: 'number',
    // 0.1 MB still takes a short prompt; past 1 GB an upload held in memory would hurt the server.
    min: 0.1,
    max: 1024,
    default: String(audioMaxSizeDefaultMb),
    category: 'audio',
    description: 'Largest audio file accepted, in MB',
    descriptionKey: 'settings.descriptions.audio_max_size_mb',
  },
  feature_second_ai_provider: {
    kind: 'boolean',
    default: 'false',
    category: 'features',
    description: 'Offer a second AI provider in tenant integrations',
    descriptionKey: 'settings.descriptions.feature_second_ai_provider',
  },
  outbound_allow_loopback: {
    kind: 'boolean',
    default: 'false',
    category: 'security',
    description: 'Let plan requests reach loopback addresses',
    descriptionKey: 'settings.descriptions.outbound_allow_loopback',
  },
  outbound_allow_private: {
    kind: 'boolean',
    default: 'false',
    category: 'security',
    description: 'Let plan requests reach private network addresses',
    descriptionKey: 'settings.descriptions.outbound_allow_private',
  },
  reports_retention_days: {
    kind: 'number',
    // Read by the retention job on every pass (docs/sessions.md, "Retention"): up to ten years.
    min: 1,
    max: 3650,
    default: '365',
    category: 'reports',
    description: 'Days call reports, sessions and their events are kept',
    descriptionKey: 'settings.descriptions.reports_retention_days',
  },
  conversations_retention_days: {
    kind: 'number',
    // Read by the retention job on every pass (docs/conversations.md, "Retention"): as the reports' by default.
    min: 1,
    max: 3650,
    default: '365',
    category: 'conversations',
    description: 'Days closed conversations, their messages and files are kept',
    descriptionKey: 'settings.descriptions.conversations_retention_days',
  },
  conversation_transfer_timeout_seconds: {
    kind: 'number',
    // A transfer not accepted by then goes back (docs/conversations.md, "Transfer deadline"): from 15 seconds to an hour.
    min: 15,
    max: 3600,
    default: '120',
    category: 'conversations',
    description: 'Seconds a transferred chat waits to be accepted before it goes back',
    descriptionKey: 'settings.descriptions.conversation_transfer_timeout_seconds',
  },
  license_server_url: {
    kind: 'url',
    // Off until the vendor gives one: the licence is then synced only when an administrator asks (docs/licence.md).
    default: '',
    category: 'license',
    description: 'Address of the licence server the licence is synced with; empty: no sync',
    descriptionKey: 'settings.descriptions.license_server_url',
  },
  voice_session_end_timeout_minutes: {
    kind: 'number',
    // A call still open after a week is not a call; under 5 minutes would close live ones.
    min: 5,
    max: 10080,
    default: '240',
    category: 'reports',
    description: 'Minutes without activity after which a call whose end never arrived is closed as expired',
    descriptionKey: 'settings.descriptions.voice_session_end_timeout_minutes',
  },
} as const satisfies Record<string, SystemSettingDefinition>;

export type SystemSettingName = keyof typeof systemSettings;
type SettingValue<D extends SettingKind> = D extends { kind: 'number' } ? number : D extends { kind: 'boolean' } ? boolean : string;

export function systemSettingNamed(name: string): SystemSettingDefinition | undefined {
  return Object.hasOwn(systemSettings, name) ? systemSettings[name as SystemSettingName] : undefined;
}

/** What a value may be, in words that read the same in every language ("0.1–1024", "true, false"). */
export function allowedSettingValues(kind: SettingKind): string | undefined {
  if (kind.kind === 'number') return `${kind.min}–${kind.max}`;
  if (kind.kind === 'boolean') return 'true, false';
  if (kind.kind === 'url') return 'http(s)://…, ""';
  return undefined;
}

/**
 * The value as its kind reads it, or undefined when the text is not one: a number is plain decimal
 * notation ("1e3", "0x10" and "" are refused, though Number() would take them) within the range;
 * a boolean is "true" or "false".
 */
export function parseSettingValue<D extends SettingKind>(kind: D, text: string): SettingValue<D> | undefined {
  const trimmed = text.trim();
  if (kind.kind === 'number') {
    if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return undefined;
    const value = Number(trimmed);
    return (value >= kind.min && value <= kind.max ? value : undefined) as SettingValue<D> | undefined;
  }
  if (kind.kind === 'boolean') {
    return (trimmed === 'true' ? true : trimmed === 'false' ? false : undefined) as SettingValue<D> | undefined;
  }
  if (kind.kind === 'url') return (trimmed === '' || isHttpUrl(trimmed) ? trimmed : undefined) as SettingValue<D> | undefined;
  return text as SettingValue<D>;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A system setting's value for its readers: the stored text when it is valid, else the default. */
export function systemSettingValue<N extends SystemSettingName>(name: N, stored: string | undefined): SettingValue<(typeof systemSettings)[N]> {
  const definition: (typeof systemSettings)[N] = systemSettings[name];
  const value = stored === undefined ? undefined : parseSettingValue(definition, stored);
  return value ?? parseSettingValue(definition, definition.default)!;
}

/** The on/off settings of the "features" category: they decide what the console offers. */
export type FeatureName = { [N in SystemSettingName]: (typeof systemSettings)[N] extends { category: 'features'; kind: 'boolean' } ? N : never }[SystemSettingName];

export const featureNames = (Object.keys(systemSettings) as SystemSettingName[]).filter(
  (name): name is FeatureName => systemSettings[name].category === 'features' && systemSettings[name].kind === 'boolean',
);

/** `GET /features`: each feature setting on or off, for every signed-in user (the settings themselves are an administrator's). */
export const featuresSchema = z.object(Object.fromEntries(featureNames.map((name) => [name, z.boolean()])) as Record<FeatureName, z.ZodBoolean>);
export type Features = z.infer<typeof featuresSchema>;

