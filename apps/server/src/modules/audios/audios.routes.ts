import fs from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import {
  type Audio,
  type AudioFormat,
  audioFileQuerySchema,
  audioLimitsSchema,
  audioMaxSizeSetting,
  audioSchema,
  audioTtsSchema,
  audioUploadFieldsSchema,
  type AudioVoices,
  audioVoicesSchema,
  bytesPerMb,
  type ErrorDetail,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import rangeParser from 'range-parser';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { isForeignKeyViolation } from '../../db/constraint-errors.ts';
import type { Database } from '../../db/schema.ts';
import { AppError, badRequest, conflict } from '../../errors.ts';
import { detailsFromZod, readingBody } from '../../plugins/errors.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { createAiProviders } from '../ai/providers.ts';
import { aiSynthesizer, aiVoices, isAiVoice } from '../ai/speech.ts';
import { readSystemSetting } from '../configurations/settings.ts';
import { convertToTelephony, listEspeakVoices, mimeTypes, probeAudio, sniffAudioFormat, withTempDir } from './audio-tools.ts';
import { audiosResource } from './audios.resource.ts';
import { espeakSynthesizer, TtsJobs } from './tts-jobs.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/** The upload limit as the setting says now, in MB. */
export async function uploadLimitMb(db: Kysely<Database>): Promise<number> {
  return readSystemSetting(db, audioMaxSizeSetting);
}

function fileTooLarge(maxSize: number): AppError {
  return new AppError(413, 'file_too_large', [{ path: 'file', message: `File bigger than ${maxSize} Mbs` }], undefined, { maxSize });
}

const invalidFormat = () => badRequest('invalid_audio_format', [{ path: 'file', message: 'not a WAV, MP3 or OGG audio that decodes' }]);

export interface Upload {
  fields: Record<string, string>;
  /** `mimetype` as the client declared it. */
  file?: { bytes: Buffer; filename: string; mimetype: string };
}

/**
 * Reads the multipart body: text fields, and one part named "file" taken into memory while its
 * size stays under the limit (the stream stops at the limit, so nothing bigger is ever held).
 * Over the limit: `tooLarge`'s error (the audios' file_too_large unless told).
 */
export async function readUpload(request: FastifyRequest, maxSizeMb: number, tooLarge: (maxSizeMb: number) => AppError = fileTooLarge): Promise<Upload> {
  const upload: Upload = { fields: {} };
  if (!request.isMultipart()) return upload;
  const unexpected: ErrorDetail[] = [];
  await readingBody(async () => {
    for await (const part of request.parts({ limits: { fileSize: Math.floor(maxSizeMb * bytesPerMb), files: 1, fields: 10, fieldSize: 10_000 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          unexpected.push({ path: part.fieldname, message: 'unexpected file' });
          part.file.resume();
          continue;
        }
        try {
          upload.file = { bytes: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype };
        } catch (error) {
          if (error instanceof request.server.multipartErrors.RequestFileTooLargeError) throw tooLarge(maxSizeMb);
          throw error;
        }
      } else if (Object.hasOwn(upload.fields, part.fieldname)) {
        unexpected.push({ path: part.fieldname, message: 'sent twice' });
      } else {
        upload.fields[part.fieldname] = String(part.value);
      }
    }
  });
  if (unexpected.length > 0) throw badRequest('invalid_input', unexpected);
  return upload;
}

/** The name, language and file of an upload, each refused on its own field. */
function checkUpload(upload: Upload, languages: Set<string>): { name: string; language: string; bytes: Buffer } {
  const details: ErrorDetail[] = [];
  const fields = audioUploadFieldsSchema.safeParse(upload.fields);
  if (!fields.success) details.push(...detailsFromZod(fields.error));
  else if (fields.data.language !== undefined && !languages.has(fields.data.language)) details.push({ path: 'language', message: 'unknown language' });
  if (!upload.file || upload.file.bytes.length === 0) details.push({ path: 'file', message: 'required' });
  if (details.length > 0 || !fields.success || !upload.file) throw badRequest('invalid_input', details);
  return { name: fields.data.name, language: fields.data.language ?? '', bytes: upload.file.bytes };
}

/** The format the content announces, confirmed by decoding it, with its duration. */
async function inspectUpload(bytes: Buffer): Promise<{ format: AudioFormat; durationMs: number }> {
  const format = sniffAudioFormat(bytes);
  if (!format) throw invalidFormat();
  const probe = await withTempDir(async (dir) => {
    const file = path.join(dir, `upload.${format}`);
    await fs.writeFile(file, bytes);
    return probeAudio(file, format);
  });
  if (!probe) throw invalidFormat();
  return { format, durationMs: probe.durationMs };
}

/** "audio.wav" style names for Content-Disposition, with the UTF-8 form for other characters. */
function contentDisposition(audio: Pick<Audio, 'name'>, extension: string): string {
  const filename = `${audio.name}.${extension}`;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Sends bytes whole, or the one range asked for (so that players can seek); several ranges get the whole. */
export function sendBytes(request: FastifyRequest, reply: FastifyReply, bytes: Buffer, mimeType: string) {
  reply.header('content-type', mimeType).header('accept-ranges', 'bytes').header('cache-control', 'private, no-cache');
  const header = request.headers.range;
  if (header) {
    const ranges = rangeParser(bytes.length, header, { combine: true });
    if (ranges === -1) return reply.status(416).header('content-range', `bytes */${bytes.length}`).send();
    if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      const { start, end } = ranges[0]!;
      return reply
        .status(206)
        .header('content-range', `bytes ${start}-${end}/${bytes.length}`)
        .send(bytes.subarray(start, end + 1));
    }
  }
  return reply.status(200).send(bytes);
}

/** Uploads, text to speech, the sound itself, and what the forms offer; the metadata is the generic resource's. */
export async function registerAudioRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new ResourceService(audiosResource, ctx);
  const jobs = new TtsJobs(ctx.db, app.log);
  const providers = createAiProviders(ctx);
  app.addHook('onClose', () => jobs.close());

  let voices: Promise<Omit<AudioVoices, 'ai_voices'>> | undefined;
  // Read once: the installed voices change only with the package. A failure is not kept.
  const loadVoices = () => {
    voices ??= listEspeakVoices().catch((error: unknown) => {
      voices = undefined;
      throw error;
    });
    return voices;
  };
  const languageCodes = async () => new Set((await loadVoices()).languages.map((language) => language.code));

  await app.register(async (audioApp) => {
    // Only these routes take multipart bodies; every other keeps answering JSON-only.
    await audioApp.register(multipart, { throwFileSizeLimit: true });
    const routes = audioApp.withTypeProvider<ZodTypeProvider>();
    const tags = ['audios'];
    // Role and tenant are checked before the body is read: a guest's upload is not even received.
    const createGuard = { preValidation: async (request: FastifyRequest) => void service.assertCreatable(scopeOf(request)) };

    routes.get('/audios/voices', { schema: { tags, response: { 200: audioVoicesSchema } } }, async (request) => {
      const tenantId = scopeOf(request).tenantId;
      // The AI voices are the tenant's: offered while it has an OpenAI key.
      const hasAiKey = tenantId !== null && (await providers.clientFor(tenantId, 'openai')).ok;
      return { ...(await loadVoices()), ai_voices: hasAiKey ? aiVoices : [] };
    });

    routes.get('/audios/limits', { schema: { tags, response: { 200: audioLimitsSchema } } }, async () => ({ max_size_mb: await uploadLimitMb(ctx.db) }));

    routes.post(
      '/audios/upload',
      {
        ...createGuard,
        schema: {
          tags,
          consumes: ['multipart/form-data'],
          description: 'multipart/form-data: name, language (optional), file (WAV, MP3 or OGG, at most the audio_max_size_mb setting)',
          response: { 201: audioSchema },
        },
      },
      async (request, reply) => {
        const maxSizeMb = await uploadLimitMb(ctx.db);
        const upload = await readUpload(request, maxSizeMb);
        // espeak-ng is asked only when a language is given: uploads need no text to speech.
        const languages = upload.fields.language === undefined ? new Set<string>() : await languageCodes();
        const { name, language, bytes } = checkUpload(upload, languages);
        const { format, durationMs } = await inspectUpload(bytes);
        const values = { name, source: 'upload', language, voice: '', text: '', format, mime_type: mimeTypes[format], size: bytes.length, duration_ms: durationMs, status: 'ready', progress: 100 };
        const created = await service.create(scopeOf(request), values, async (row, write) => {
          await write.trx.insertInto('audio_data').values({ audio_id: row.id, variant: 'original', mime_type: mimeTypes[format], data: bytes }).execute();
        });
        return reply.status(201).send(created);
      },
    );

    routes.post('/audios/tts', { ...createGuard, schema: { tags, body: audioTtsSchema, response: { 201: audioSchema } } }, async (request, reply) => {
      const { name, text, language, voice = '' } = request.body;
      const offered = await loadVoices();
      const details: ErrorDetail[] = [];
      const isAi = isAiVoice(voice);
      if (!offered.languages.some((entry) => entry.code === language)) details.push({ path: 'language', message: 'unknown language' });
      if (voice !== '' && !(isAi ? aiVoices : offered.voices).some((entry) => entry.id === voice)) details.push({ path: 'voice', message: 'unknown voice' });
      if (details.length > 0) throw badRequest('invalid_input', details);
      const scope = scopeOf(request);
      let synthesizer = espeakSynthesizer(language, voice);
      if (isAi) {
        const choice = scope.tenantId === null ? undefined : await providers.clientFor(scope.tenantId, 'openai');
        if (!choice?.ok) throw badRequest('ai_key_not_found', [{ path: 'voice', message: 'AI voices need the tenant’s OpenAI key' }]);
        synthesizer = aiSynthesizer(choice.client, ctx.config.ai.speechModel, voice);
      }
      const values = { name, source: 'tts', language, voice, text, format: 'wav', mime_type: mimeTypes.wav, size: 0, duration_ms: null, status: 'generating', progress: 0 };
      const created = (await service.create(scope, values)) as Audio;
      jobs.start(created.id, text, synthesizer);
      return reply.status(201).send(created);
    });

    routes.get(
      '/audios/:id/file',
      { schema: { tags, params: idParams, querystring: audioFileQuerySchema, description: 'The sound; honours Range. format=telephony: 8 kHz mono WAV' } },
      async (request, reply) => {
        const audio = (await service.get(scopeOf(request), request.params.id)) as Audio;
        if (audio.status !== 'ready') throw conflict('audio_not_ready');
        if (request.query.format !== 'telephony') {
          const original = await ctx.db
            .selectFrom('audio_data')
            .select(['mime_type', 'data'])
            .where('audio_id', '=', audio.id)
            .where('variant', '=', 'original')
            .executeTakeFirst();
          if (!original) throw new AppError(404, 'audio_not_found');
          reply.header('content-disposition', contentDisposition(audio, audio.format));
          return sendBytes(request, reply, original.data, original.mime_type);
        }
        return sendTelephonyCopy(ctx, request, reply, audio);
      },
    );
  });
}

/**
 * The audio in the telephony format (8 kHz mono WAV), converted from the original on first use and
 * stored: the console's `format=telephony` and the signed media URLs providers fetch.
 */
export async function sendTelephonyCopy(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, audio: Pick<Audio, 'id' | 'name' | 'format'>) {
  const stored = await ctx.db
    .selectFrom('audio_data')
    .select(['variant', 'mime_type', 'data'])
    .where('audio_id', '=', audio.id)
    .where('variant', 'in', ['original', 'telephony'])
    .execute();
  const original = stored.find((row) => row.variant === 'original');
  if (!original) throw new AppError(404, 'audio_not_found');
  let copy = stored.find((row) => row.variant === 'telephony')?.data;
  if (!copy) {
    copy = await withTempDir(async (dir) => {
      const input = path.join(dir, `original.${audio.format}`);
      const output = path.join(dir, 'telephony.wav');
      await fs.writeFile(input, original.data);
      await convertToTelephony(input, output);
      return fs.readFile(output);
    });
    // Converted once: later requests, on any instance, read the stored copy. Two converting
    // at once store the same bytes; the first one stays.
    try {
      await ctx.db
        .insertInto('audio_data')
        .values({ audio_id: audio.id, variant: 'telephony', mime_type: mimeTypes.wav, data: copy })
        .onConflict((oc) => oc.columns(['audio_id', 'variant']).doNothing())
        .execute();
    } catch (error) {
      // Removed meanwhile: the copy is still the answer to this request.
      if (!isForeignKeyViolation(error)) throw error;
    }
  }
  reply.header('content-disposition', contentDisposition(audio, 'wav'));
  return sendBytes(request, reply, copy, mimeTypes.wav);
}
