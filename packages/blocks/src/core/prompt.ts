/** Plays a prompt (`play_message`, and the prompt of `voice_menu` and `speech_detection`). */
import { type AudioInfo, compileTemplate, type Template, type Turn } from '@voxplan/engine';

export interface PromptData {
  text_to_speech: boolean;
  voice_text: string;
  audio_id: number | null;
  chat_text: string;
  language: string;
}

export interface CompiledPrompt {
  textToSpeech: boolean;
  voice: Template;
  audioId: number | null;
  chat: Template;
  /** The block's language, '' for the plan's: the engine fills that in on the actions. */
  language: string;
}

export function compilePrompt(data: PromptData): CompiledPrompt {
  return {
    textToSpeech: data.text_to_speech,
    voice: compileTemplate(data.voice_text),
    audioId: data.audio_id,
    chat: compileTemplate(data.chat_text),
    language: data.language,
  };
}

/**
 * Voice: speaks the text, or plays the audio. An audio removed since the plan was saved falls back
 * to the spoken text, so the caller still hears something when there is one. A promise only when
 * the audio port answers with one: the blocks that speak are most of a call's, and a promise each
 * cost the engine's turn a microtask and an async frame.
 */
export function playPrompt(turn: Turn, prompt: CompiledPrompt): Promise<void> | undefined {
  if (!prompt.textToSpeech && prompt.audioId !== null) return playAudio(turn, prompt, prompt.audioId);
  sayPrompt(turn, prompt);
  return undefined;
}

function playAudio(turn: Turn, prompt: CompiledPrompt, audioId: number): Promise<void> | undefined {
  const found = turn.ports.audios.find(turn.session.tenant_id, audioId);
  if (found instanceof Promise) return found.then((audio) => playFound(turn, prompt, audio));
  playFound(turn, prompt, found);
  return undefined;
}

function playFound(turn: Turn, prompt: CompiledPrompt, audio: AudioInfo | undefined): void {
  if (audio) turn.emit({ type: 'play', audio_id: audio.id, url: audio.url });
  else sayPrompt(turn, prompt);
}

function sayPrompt(turn: Turn, prompt: CompiledPrompt): void {
  const text = turn.render(prompt.voice);
  if (text.trim() !== '') turn.emit(prompt.language ? { type: 'say', text, language: prompt.language } : { type: 'say', text });
}

/** Chat: the chat text, or the voice text when the plan syncs them or the chat text is empty. */
export function chatPromptText(turn: Turn, prompt: CompiledPrompt): string {
  const chat = turn.render(prompt.chat);
  return turn.plan.settings.sync_with_voice_text || chat.trim() === '' ? turn.render(prompt.voice) : chat;
}
