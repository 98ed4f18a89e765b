/**
 * Analyses of a `recording` block, run once the material is complete: for voice when the
 * recording is ready (usually after the call ended), for chat when the conversation ends.
 */
import type { EnginePorts } from './runtime.ts';
import type { Session } from './session.ts';

/** Stable per session, so a retried turn makes the same choice (no random source needed). */
export function isSampled(sessionId: string, percentage: number): boolean {
  if (percentage >= 100) return true;
  if (percentage <= 0) return false;
  let hash = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) {
    hash ^= sessionId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 100 < percentage;
}

/** Runs the analyses if the session's recording is ready for them; changes `session.recording`. */
export async function analyseRecording(session: Session, ports: EnginePorts): Promise<void> {
  const recording = session.recording;
  if (!recording || recording.status !== 'recording' || session.status !== 'ended') return;
  const isVoice = session.channel === 'voice';
  if (isVoice && recording.url === null) return;
  const duration =
    isVoice ? (recording.duration_s ?? 0) : Math.round((Date.parse(session.ended_at ?? session.started_at) - Date.parse(session.started_at)) / 1000);
  if (!isVoice) recording.duration_s = duration;
  if (!recording.selected || recording.analyses.length === 0 || duration < recording.min_duration_s) {
    recording.status = 'recorded';
    return;
  }
  const source =
    isVoice
      ? { kind: 'audio' as const, url: recording.url ?? '', provider: session.provider }
      : { kind: 'transcript' as const, text: session.transcript.map((line) => `${line.from}: ${line.text}`).join('\n') };
  try {
    const result = await ports.ai.analyse({ tenantId: session.tenant_id, sessionId: session.id, analyses: recording.analyses, source, anonymization: recording.anonymization });
    if (result.ok) {
      recording.status = 'analysed';
      recording.results = result.results;
    } else {
      recording.status = 'failed';
      recording.error = result.code;
    }
  } catch {
    recording.status = 'failed';
    recording.error = 'ai_access_error';
  }
}
