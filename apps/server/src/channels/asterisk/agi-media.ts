/**
 * What the AGI server checks of a call's media (docs/channels-asterisk.md): why the PBX could not play a
 * prompt URL, and whether MixMonitor's recording file is there once the call ended.
 */
import fs from 'node:fs/promises';
import type { AppContext } from '../../context.ts';
import { mediaAudioPath, mediaSpeechPath, type MediaUrls } from '../../modules/audios/media-urls.ts';

/**
 * Why the PBX could not play a prompt URL, as far as the server can tell: a URL it would refuse
 * (expired, not signed), an audio it no longer has; else the PBX could not reach it (PUBLIC_URL
 * must be reachable from the PBX, and Asterisk must fetch URLs: res_http_media_cache).
 */
export async function unplayableReason(ctx: AppContext, media: MediaUrls, url: string): Promise<string> {
  if (!url.startsWith(`${ctx.config.publicUrl}/`)) return 'not_under_public_url';
  const parsed = new URL(url);
  const query = (name: string) => parsed.searchParams.get(name) ?? undefined;
  const refused = (check: string) => (check === 'expired' ? 'media_url_expired' : 'invalid_media_signature');
  if (parsed.pathname === mediaSpeechPath) {
    const check = media.checkSpeech(query('text') ?? '', query('lang') ?? '', query('voice') ?? '', query('exp'), query('sig'));
    return check === 'ok' ? 'unreachable_from_pbx' : refused(check);
  }
  const audioId = Number(parsed.pathname.slice(mediaAudioPath(0).length - 1));
  if (Number.isInteger(audioId) && parsed.pathname === mediaAudioPath(audioId)) {
    const check = media.check(audioId, query('exp'), query('sig'));
    if (check !== 'ok') return refused(check);
    const stored = await ctx.db
      .selectFrom('audios')
      .innerJoin('audio_data', 'audio_data.audio_id', 'audios.id')
      .select('audios.id')
      .where('audios.id', '=', audioId)
      .where('audios.status', '=', 'ready')
      .where('audio_data.variant', '=', 'original')
      .executeTakeFirst();
    return stored ? 'unreachable_from_pbx' : 'audio_not_found';
  }
  return 'unreachable_from_pbx';
}

/** MixMonitor closes its file a moment after the call ends: how long the server looks for it. */
const RECORDING_FILE_WAIT_MS = 10_000;

export async function recordingFile(file: string): Promise<boolean> {
  const deadline = Date.now() + RECORDING_FILE_WAIT_MS;
  for (;;) {
    // A WAV header alone (44 bytes) is a file MixMonitor opened and wrote nothing into.
    const size = await fs.stat(file).then((stat) => stat.size, () => 0);
    if (size > 44) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
