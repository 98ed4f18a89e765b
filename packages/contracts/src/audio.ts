import { z } from 'zod';
import { idSchema, storableText, timestampSchema } from './common.ts';

/** Formats an upload may have; the server tells them from the file's content, not its name. */
export const audioFormats = ['wav', 'mp3', 'ogg'] as const;
export type AudioFormat = (typeof audioFormats)[number];
export const audioSources = ['upload', 'tts'] as const;
export type AudioSource = (typeof audioSources)[number];
/** Uploads are ready at once; text to speech is generating until its audio is stored (or failed). */
export const audioStatuses = ['generating', 'ready', 'failed'] as const;
export type AudioStatus = (typeof audioStatuses)[number];

export const audioNameMaxLength = 100;
/** Prompts, not audiobooks: a long text also holds a generation slot for long. */
export const audioTextMaxLength = 5000;
/** The general setting with the largest upload, in MB (MiB); read at upload time. */
export const audioMaxSizeSetting = 'audio_max_size_mb';
export const audioMaxSizeDefaultMb = 10;

export const audioSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  source: z.enum(audioSources),
  /** espeak-ng language code (e.g. pt-br); may be empty for uploads. */
  language: z.string(),
  /** espeak-ng voice variant (e.g. f3); empty for the language's own voice and for uploads. */
  voice: z.string(),
  /** The text spoken, for text to speech; empty for uploads. */
  text: z.string(),
  format: z.enum(audioFormats),
  mime_type: z.string(),
  /** Bytes of the stored file (0 while generating). */
  size: z.number().int().nonnegative(),
  duration_ms: z.number().int().nonnegative().nullable(),
  status: z.enum(audioStatuses),
  /** 0-100 while generating; 100 once ready. */
  progress: z.number().int().min(0).max(100),
});
export type Audio = z.infer<typeof audioSchema>;

const nameSchema = storableText().trim().min(1).max(audioNameMaxLength);
const languageSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9-]+$/);
const voiceSchema = z
  .string()
  .trim()
  .max(40)
  .regex(/^[A-Za-z0-9_ -]*$/);

/** Only the name changes after the fact; the audio itself is replaced by uploading anew. */
export const audioUpdateSchema = z.object({ name: nameSchema }).partial().strict();
export type AudioUpdate = z.input<typeof audioUpdateSchema>;

/** The text fields sent with an upload (multipart) besides the `file` part. */
export const audioUploadFieldsSchema = z.object({ name: nameSchema, language: languageSchema.optional() }).strict();
export type AudioUploadFields = z.input<typeof audioUploadFieldsSchema>;

export const audioTtsSchema = z
  .object({
    name: nameSchema,
    text: storableText().trim().min(1).max(audioTextMaxLength),
    language: languageSchema,
    voice: voiceSchema.optional(),
  })
  .strict();
export type AudioTtsInput = z.input<typeof audioTtsSchema>;

export const audioFileQuerySchema = z.object({
  format: z
    .enum(['original', 'telephony'])
    .optional()
    .describe('original (default) or telephony: 8 kHz mono 16-bit WAV, converted once and kept'),
});

/**
 * What text to speech offers: espeak-ng's languages and its voice variants, and the AI voices of
 * the tenant's AI provider (none without its key; ids `openai-<voice>`, docs/ai.md).
 */
export const audioVoicesSchema = z.object({
  engine: z.literal('espeak-ng'),
  languages: z.array(z.object({ code: z.string(), name: z.string() })),
  voices: z.array(z.object({ id: z.string(), name: z.string(), gender: z.enum(['male', 'female', 'unknown']) })),
  ai_voices: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type AudioVoices = z.infer<typeof audioVoicesSchema>;

/** The upload limit members may read (the general settings are for administrators). */
export const audioLimitsSchema = z.object({ max_size_mb: z.number().positive() });
export type AudioLimits = z.infer<typeof audioLimitsSchema>;

