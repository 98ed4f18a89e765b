import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Real audio files made by ffmpeg (a tone), and what ffprobe says of any audio bytes. */

const encoders = {
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  ogg: ['-c:a', 'libvorbis', '-f', 'ogg'],
} as const;
export type FixtureFormat = keyof typeof encoders;

const made = new Map<string, Buffer>();

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-fixture-'));
  try {
    return work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A tone of the given length; sampleRate and channels as a recording might have them. */
export function makeAudio(format: FixtureFormat, seconds = 1, sampleRate = 44_100, channels = 2): Buffer {
  const key = `${format}:${seconds}:${sampleRate}:${channels}`;
  const cached = made.get(key);
  if (cached) return cached;
  const bytes = inTempDir((dir) => {
    const file = path.join(dir, `tone.${format}`);
    execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=${sampleRate}`, '-ac', String(channels), ...encoders[format], file]);
    return fs.readFileSync(file);
  });
  made.set(key, bytes);
  return bytes;
}

export interface Probed {
  format: string;
  codec: string;
  sampleRate: number;
  channels: number;
  durationMs: number;
}

/** ffprobe's view of some bytes: throws when they do not decode. */
export function probe(bytes: Buffer): Probed {
  return inTempDir((dir) => {
    const file = path.join(dir, 'probed');
    fs.writeFileSync(file, bytes);
    const output = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels,nb_read_frames:format=format_name,duration', '-of', 'json', file], { encoding: 'utf8' });
    const parsed = JSON.parse(output) as { streams: { codec_name: string; sample_rate: string; channels: number; nb_read_frames: string }[]; format: { format_name: string; duration: string } };
    const stream = parsed.streams[0];
    if (!stream || Number(stream.nb_read_frames) <= 0) throw new Error('no audio frames');
    return { format: parsed.format.format_name, codec: stream.codec_name, sampleRate: Number(stream.sample_rate), channels: stream.channels, durationMs: Math.round(Number(parsed.format.duration) * 1000) };
  });
}

/** A multipart/form-data body as a browser sends it: the text fields, then the file. */
export function multipartBody(fields: Record<string, unknown>, file?: { bytes: Buffer; filename: string; type?: string }): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----voxplan${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${String(value)}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The call that uploads an audio: a one-second WAV tone unless another file is given. */
export function uploadCall(fields: Record<string, unknown>, file: { bytes: Buffer; filename: string; type?: string } | null = { bytes: makeAudio('wav'), filename: 'tone.wav', type: 'audio/wav' }) {
  return { method: 'POST' as const, url: '/audios/upload', ...multipartBody(fields, file ?? undefined) };
}
