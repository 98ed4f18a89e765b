import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AudioFormat, AudioVoices } from '@voxplan/contracts';

/**
 * The audio programs, each run as a child process so that decoding, converting and speaking never
 * hold the event loop: ffprobe (is it audio, how long), ffmpeg (telephony copies, joining spoken
 * parts) and espeak-ng (text to speech). Debian packages, installed by .ci/run and
 * scripts/ensure-system-packages.ts.
 */

const execFileAsync = promisify(execFile);

/** A tool that fails for another reason than the input (not installed, killed) is the server's fault. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly inputRefused: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ToolError';
  }
}

interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

async function run(command: string, args: string[], options: RunOptions): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      timeout: options.timeoutMs,
      signal: options.signal,
      maxBuffer: 16 * 1024 * 1024,
      encoding: 'utf8',
    });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { killed?: boolean; stderr?: string; code?: unknown };
    if (failure.code === 'ENOENT') throw new ToolError(`${command} is not installed`, false, { cause: error });
    if (failure.name === 'AbortError' || failure.killed) throw new ToolError(`${command} was stopped`, false, { cause: error });
    // A non-zero exit: the program read the input and refused it.
    throw new ToolError(`${command} failed: ${String(failure.stderr ?? '').trim().slice(0, 500)}`, true, { cause: error });
  }
}

/** A private folder for one piece of work, removed afterwards whatever happens. */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'voxplan-audio-'));
  try {
    return await work(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export const mimeTypes: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg' };

/**
 * The format the first bytes announce: RIFF....WAVE, OggS, an ID3 tag or an MPEG audio layer III
 * frame header (11 sync bits, a defined version, layer III). Anything else is not one we take.
 */
export function sniffAudioFormat(bytes: Uint8Array): AudioFormat | undefined {
  const ascii = (start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (bytes.length >= 4 && ascii(0, 4) === 'OggS') return 'ogg';
  if (bytes.length >= 3 && ascii(0, 3) === 'ID3') return 'mp3';
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) {
    const version = (bytes[1]! >> 3) & 0b11;
    const layer = (bytes[1]! >> 1) & 0b11;
    if (version !== 0b01 && layer === 0b01) return 'mp3';
  }
  return undefined;
}

/** ffprobe's name for the container of each format. */
const probedFormatNames: Record<AudioFormat, string> = { wav: 'wav', mp3: 'mp3', ogg: 'ogg' };

export interface AudioProbe {
  durationMs: number;
  sampleRate: number;
  channels: number;
  codec: string;
}

interface FfprobeOutput {
  streams?: { codec_name?: string; sample_rate?: string; channels?: number; nb_read_frames?: string }[];
  format?: { format_name?: string; duration?: string };
}

const PROBE_TIMEOUT_MS = 60_000;

/**
 * Decodes the whole file (ffprobe -count_frames) and says what it holds; undefined when it is not
 * audio of the expected format that decodes to at least one frame.
 */
export async function probeAudio(file: string, expected?: AudioFormat): Promise<AudioProbe | undefined> {
  let output: string;
  try {
    output = await run(
      'ffprobe',
      [
        '-v', 'error',
        '-count_frames',
        '-select_streams', 'a:0',
        '-show_entries', 'stream=codec_name,sample_rate,channels,nb_read_frames:format=format_name,duration',
        '-of', 'json',
        file,
      ],
      { timeoutMs: PROBE_TIMEOUT_MS },
    );
  } catch (error) {
    if (error instanceof ToolError && error.inputRefused) return undefined;
    throw error;
  }
  const probed = JSON.parse(output) as FfprobeOutput;
  const stream = probed.streams?.[0];
  const durationMs = Math.round(Number(probed.format?.duration) * 1000);
  const frames = Number(stream?.nb_read_frames);
  if (!stream || !Number.isFinite(durationMs) || durationMs <= 0 || !Number.isFinite(frames) || frames <= 0) return undefined;
  if (expected && !(probed.format?.format_name ?? '').split(',').includes(probedFormatNames[expected])) return undefined;
  return { durationMs, sampleRate: Number(stream.sample_rate), channels: Number(stream.channels), codec: stream.codec_name ?? '' };
}

const CONVERT_TIMEOUT_MS = 120_000;

/** 8 kHz, mono, 16-bit PCM WAV: what telephony platforms play without converting. */
export async function convertToTelephony(input: string, output: string): Promise<void> {
  await run('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-i', input, '-ac', '1', '-ar', '8000', '-c:a', 'pcm_s16le', '-f', 'wav', output], {
    timeoutMs: CONVERT_TIMEOUT_MS,
  });
}

/** A call's WAV recording as MP3 (what a recording block may ask for, and Asterisk cannot write). */
export async function convertToMp3(input: string, output: string): Promise<void> {
  await run('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-i', input, '-c:a', 'libmp3lame', '-q:a', '4', '-f', 'mp3', output], { timeoutMs: CONVERT_TIMEOUT_MS });
}

/** Joins WAV files of the same kind end to end into one WAV file. */
export async function concatenateWav(inputs: string[], output: string, signal?: AbortSignal): Promise<void> {
  if (inputs.length === 1) {
    await fs.copyFile(inputs[0]!, output);
    return;
  }
  const args = ['-v', 'error', '-nostdin', '-y', ...inputs.flatMap((input) => ['-i', input])];
  args.push('-filter_complex', `concat=n=${inputs.length}:v=0:a=1`, '-c:a', 'pcm_s16le', '-f', 'wav', output);
  await run('ffmpeg', args, { timeoutMs: CONVERT_TIMEOUT_MS, signal });
}

const SPEAK_TIMEOUT_MS = 60_000;

/** Speaks a text file into a WAV file with espeak-ng, in a language and, optionally, a voice variant. */
export async function speakWithEspeak(textFile: string, language: string, voice: string, output: string, signal?: AbortSignal): Promise<void> {
  // -b 1: the text is UTF-8; the text comes from a file so that nothing in it is read as an option.
  await run('espeak-ng', ['-v', voice ? `${language}+${voice}` : language, '-b', '1', '-w', output, '-f', textFile], {
    timeoutMs: SPEAK_TIMEOUT_MS,
    signal,
  });
}

/**
 * `espeak-ng --voices` prints a table: Pty, Language, Age/Gender, VoiceName, File, Other languages.
 * Names use underscores for spaces; a variant's file is "!v/<id>", the id taken after "+".
 */
export function parseEspeakVoices(table: string): { code: string; name: string; gender: 'male' | 'female' | 'unknown'; file: string }[] {
  const rows = [];
  for (const line of table.split('\n').slice(1)) {
    const match = /^\s*\d+\s+(\S+)\s+\S*\/([MF-])\s+(\S+)\s+(.+?)\s*(\(.*)?$/.exec(line);
    if (!match) continue;
    const [, code, gender, name, file] = match;
    rows.push({ code: code!, name: name!.replace(/_/g, ' '), gender: gender === 'M' ? ('male' as const) : gender === 'F' ? ('female' as const) : ('unknown' as const), file: file!.trim() });
  }
  return rows;
}

const VOICES_TIMEOUT_MS = 10_000;

/** espeak-ng's languages and voice variants, sorted by name. */
export async function listEspeakVoices(): Promise<Omit<AudioVoices, 'ai_voices'>> {
  const [languages, variants] = await Promise.all([
    run('espeak-ng', ['--voices'], { timeoutMs: VOICES_TIMEOUT_MS }),
    run('espeak-ng', ['--voices=variant'], { timeoutMs: VOICES_TIMEOUT_MS }),
  ]);
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  // A code may be listed twice (espeak-ng 1.51 has two "yue" voices): the first, as -v picks it.
  const firstOf = <T>(key: (item: T) => string) => (item: T, index: number, all: T[]) => all.findIndex((other) => key(other) === key(item)) === index;
  return {
    engine: 'espeak-ng',
    languages: parseEspeakVoices(languages)
      .filter((row) => row.code !== 'variant')
      .map(({ code, name }) => ({ code, name }))
      .filter(firstOf((language) => language.code))
      .sort(byName),
    voices: parseEspeakVoices(variants)
      .filter((row) => row.code === 'variant' && row.file.startsWith('!v/'))
      .map(({ file, name, gender }) => ({ id: file.slice(3), name, gender }))
      // Ids with spaces ("Mr serious") are left out: they are spelled differently after "+".
      .filter((voice) => /^[A-Za-z0-9_-]+$/.test(voice.id))
      .filter(firstOf((voice) => voice.id))
      .sort(byName),
  };
}
