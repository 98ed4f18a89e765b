import type { AiResult } from '@voxplan/engine/ports';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import type { AiConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { createAiProviders, failureOf } from './providers.ts';

/** OpenAI's limit for an uploaded audio file. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

export type AudioFile = Awaited<ReturnType<typeof toFile>>;

/** Audio bytes as the upload the transcription endpoint takes; the name's extension tells it the format. */
export function audioFile(bytes: Buffer, mimeType: string): Promise<AudioFile> {
  const extension = /mpeg|mp3/.test(mimeType) ? 'mp3' : /ogg|opus/.test(mimeType) ? 'ogg' : /mp4|m4a|aac/.test(mimeType) ? 'm4a' : 'wav';
  return toFile(bytes, `audio.${extension}`, { type: mimeType || 'audio/wav' });
}

/** One transcription; `language` is a tag such as pt-BR, of which the endpoint takes the ISO-639-1 part. */
export async function transcribeWith(client: OpenAI, model: string, file: AudioFile, language?: string, prompt?: string): Promise<string> {
  const iso = language?.split('-')[0]?.toLowerCase();
  const result = await client.audio.transcriptions.create({ file, model, ...(iso && { language: iso }), ...(prompt && { prompt }) });
  return result.text.trim();
}

/**
 * Transcribes what a chat channel received as audio (a WhatsApp voice note), with the tenant's
 * OpenAI key, so the plan reads it as the message's text.
 */
export function createTranscriber(ctx: Pick<AppContext, 'db' | 'keys' | 'readCache'> & { config: { ai: AiConfig } }) {
  const providers = createAiProviders(ctx);
  return async (tenantId: number, bytes: Buffer, mimeType: string): Promise<AiResult<{ text: string }>> => {
    const choice = await providers.clientFor(tenantId, 'openai');
    if (!choice.ok) return { ok: false, code: choice.code, message: choice.message };
    if (bytes.length > MAX_AUDIO_BYTES) return { ok: false, code: 'ai_access_error', message: 'the audio is larger than 25 MB' };
    try {
      return { ok: true, text: await transcribeWith(choice.client, ctx.config.ai.transcriptionModel, await audioFile(bytes, mimeType)) };
    } catch (error) {
      return { ok: false, ...failureOf(error) };
    }
  };
}
