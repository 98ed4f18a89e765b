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

/**
 * Runs the analyses if the session's recording is ready for them; changes `session.recording`.
 * A promise only when the AI port is asked: a voice call's session ends before its recording is
 * ready, and its turn need not wait for nothing.
 */
export function analyseRecording(session: Session, ports: EnginePorts): Promise<void> | undefined {
  const recording = session.recording;
  if (!recording || recording.status !== 'recording' || session.status !== 'ended') return undefined;
  const isVoice = session.channel === 'voice';
  if (isVoice && recording.url === null) return undefined;
  const duration =
    isVoice ? (recording.duration_s ?? 0) : Math.round((Date.parse(session.ended_at ?? session.started_at) - Date.parse(session.started_at)) / 1000);
  if (!isVoice) recording.duration_s = duration;
  if (!recording.selected || recording.analyses.length === 0 || duration < recording.min_duration_s) {
    recording.status = 'recorded';
    return undefined;
  }
  return analyse(session, ports, recording, isVoice);
}

async function analyse(session: Session, ports: EnginePorts, recording: NonNullable<Session['recording']>, isVoice: boolean): Promise<void> {
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
