import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import type { Database } from '../../db/schema.ts';
import { isoAfter, nowIso } from '../../lib/time.ts';
import { concatenateWav, mimeTypes, probeAudio, speakWithEspeak, withTempDir } from './audio-tools.ts';

/** Speaks one part of a text into a WAV file. espeak-ng here; the AI issue adds AI voices. */
export interface Synthesizer {
  speak(textFile: string, output: string, signal: AbortSignal): Promise<void>;
}

export function espeakSynthesizer(language: string, voice: string): Synthesizer {
  return { speak: (textFile, output, signal) => speakWithEspeak(textFile, language, voice, output, signal) };
}

/** Two cores per machine: more generations at once would only slow each other and the API. */
const CONCURRENT_JOBS = 2;
/**
 * A job writes its progress at least this often (every tool it runs has a shorter time limit): a
 * row generating without news for longer belongs to a process that died.
 */
export const JOB_SILENCE_LIMIT_SECONDS = 10 * 60;
/** Parts of about this many characters: each one spoken is a step of the progress. */
const PART_LENGTH = 400;

/** The text in parts that end at sentence ends, so that each part is spoken as the whole would be. */
export function splitForSpeech(text: string, partLength = PART_LENGTH): string[] {
  const parts: string[] = [];
  let current = '';
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(text)) {
    if (current !== '' && current.length + segment.length > partLength) {
      parts.push(current);
      current = '';
    }
    current += segment;
  }
  if (current.trim() !== '') parts.push(current);
  return parts.filter((part) => part.trim() !== '');
}

/**
 * Text-to-speech generations of this process. Each runs in child processes (the synthesizer, then
 * ffmpeg and ffprobe), so the event loop only waits for them; the row's progress is written after
 * every part, and the sound is stored with the row turning ready in one transaction.
 */
export class TtsJobs {
  private readonly limit = pLimit(CONCURRENT_JOBS);
  private readonly jobs = new Map<number, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(audioId: number, text: string, synthesizer: Synthesizer): void {
    const job = this.limit(() => this.generate(audioId, text, synthesizer)).finally(() => this.jobs.delete(audioId));
    this.jobs.set(audioId, job);
  }

  /**
   * Lets the jobs finish for a while, then stops them: a stopped job (and one still queued, which
   * then starts and stops at once) marks its row failed.
   */
  async close(graceMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...this.jobs.values()]), grace]);
    clearTimeout(timer);
    this.abort.abort();
    await Promise.allSettled([...this.jobs.values()]);
  }

  private async markFailed(ids: number[]): Promise<void> {
    await this.db
      .updateTable('audios')
      .set({ status: 'failed', updated_time: nowIso() })
      .where('id', 'in', ids)
      .where('status', '=', 'generating')
      .execute();
  }

  /** False when the row is gone (removed while generating) or no longer generating. */
  private async setProgress(audioId: number, progress: number): Promise<boolean> {
    const result = await this.db
      .updateTable('audios')
      .set({ progress, updated_time: nowIso() })
      .where('id', '=', audioId)
      .where('status', '=', 'generating')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private async generate(audioId: number, text: string, synthesizer: Synthesizer): Promise<void> {
    const { signal } = this.abort;
    try {
      await withTempDir(async (dir) => {
        const parts = splitForSpeech(text);
        const spoken: string[] = [];
        for (const [index, part] of parts.entries()) {
          signal.throwIfAborted();
          const textFile = path.join(dir, `part-${index}.txt`);
          const wav = path.join(dir, `part-${index}.wav`);
          await fs.writeFile(textFile, part);
          await synthesizer.speak(textFile, wav, signal);
          spoken.push(wav);
          // The last step (joining and checking) counts as one more part.
          if (!(await this.setProgress(audioId, Math.floor(((index + 1) / (parts.length + 1)) * 100)))) return;
        }
        const output = path.join(dir, 'speech.wav');
        await concatenateWav(spoken, output, signal);
        const probe = await probeAudio(output, 'wav');
        if (!probe) throw new Error('the spoken audio does not decode');
        const data = await fs.readFile(output);
        await this.db.transaction().execute(async (trx) => {
          const updated = await trx
            .updateTable('audios')
            .set({ status: 'ready', progress: 100, format: 'wav', mime_type: mimeTypes.wav, size: data.length, duration_ms: probe.durationMs, updated_time: nowIso() })
            .where('id', '=', audioId)
            .where('status', '=', 'generating')
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) === 0) return;
          await trx.insertInto('audio_data').values({ audio_id: audioId, variant: 'original', mime_type: mimeTypes.wav, data }).execute();
        });
      });
    } catch (error) {
      this.log.error({ err: error, audioId }, 'text to speech failed');
      await this.markFailed([audioId]).catch((failure: unknown) => this.log.error({ err: failure, audioId }, 'could not mark the audio failed'));
    }
  }
}

/** Rows left generating by a process that stopped without finishing them: nothing will finish them now. */
export async function failAbandonedGenerations(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('audios')
    .set({ status: 'failed', updated_time: nowIso() })
    .where('status', '=', 'generating')
    .where('updated_time', '<', isoAfter(-JOB_SILENCE_LIMIT_SECONDS))
    .execute();
}
