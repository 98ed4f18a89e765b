/**
 * Warnings about what a block holds, not how it is connected: a message block with nothing to say
 * (no text for voice or chat, no audio) runs and goes on in silence, which nobody means. Shared by
 * the server's lint and the editor (as the user types); nothing here loads a block's schema.
 */
import type { PlanIssue, PlanWarningCode } from './issues.ts';

const isBlank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

export function contentWarnings(nodes: readonly { id: string; type: string; data?: unknown }[]): Array<PlanIssue<PlanWarningCode>> {
  const warnings: Array<PlanIssue<PlanWarningCode>> = [];
  for (const node of nodes) {
    if (node.type !== 'play_message') continue;
    const data = (node.data ?? {}) as { voice_text?: unknown; chat_text?: unknown; audio_id?: unknown };
    if (!isBlank(data.voice_text) || !isBlank(data.chat_text) || (data.audio_id !== null && data.audio_id !== undefined)) continue;
    warnings.push({ code: 'message_empty', message: 'the message has no text and no audio: it says nothing', node_id: node.id, path: 'voice_text' });
  }
  return warnings;
}
