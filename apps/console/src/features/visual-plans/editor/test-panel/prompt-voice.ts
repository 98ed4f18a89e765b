/**
 * Speaks the plan's voice prompts in the browser, one after the other as a call would: `say` with
 * the browser's speech synthesis, `play` as the stored audio.
 */
import type { Action } from '@voxplan/engine';
import { api } from '../../../../lib/api/client.ts';
import { AUDIOS } from '../../../audios/use-audios.ts';

/**
 * Some browsers (headless ones, some Linux builds) never fire an utterance's `end`: past this
 * much time a prompt counts as spoken, so the gather's clock still starts.
 */
const speakingTimeMs = (text: string) => 3_000 + text.length * 90;

const tagOf = (voice: Pick<SpeechSynthesisVoice, 'lang'>) => voice.lang.replace('_', '-').toLowerCase();

/**
 * The browser's voice for a prompt's language: one of that very tag (pt-BR), else one of the same
 * language (pt-PT), else none, and the browser picks by the utterance's `lang` alone. Chosen here
 * because some browsers otherwise speak every utterance in their default voice, whatever its `lang`.
 */
export function browserVoiceFor<V extends Pick<SpeechSynthesisVoice, 'lang'>>(voices: readonly V[], language: string): V | undefined {
  const tag = language.toLowerCase();
  const primary = tag.split('-')[0];
  return voices.find((voice) => tagOf(voice) === tag) ?? voices.find((voice) => tagOf(voice).split('-')[0] === primary);
}

export class PromptVoice {
  private queue: Promise<void> = Promise.resolve();
  /** Bumped by `stop`: prompts queued before it are dropped. */
  private generation = 0;
  private audio: HTMLAudioElement | null = null;

  /** `fallbackLanguage`: the language of a `say` that names none (the plan's, else the user's). */
  constructor(private readonly fallbackLanguage: () => string) {}

  enqueue(action: Action): void {
    if (action.type !== 'say' && action.type !== 'play') return;
    const generation = this.generation;
    this.queue = this.queue
      .then(() => {
        if (generation !== this.generation) return;
        return action.type === 'say' ? this.speak(action.text, action.language ?? this.fallbackLanguage()) : this.play(action.audio_id, generation);
      })
      // A prompt that cannot be voiced (no synthesis, an audio removed) is still in the transcript.
      .catch(() => undefined);
  }

  /** Settles once every prompt queued so far was voiced: where a real call starts a gather's clock. */
  settled(): Promise<void> {
    return this.queue;
  }

  stop(): void {
    this.generation++;
    if (typeof speechSynthesis !== 'undefined') speechSynthesis.cancel();
    this.audio?.pause();
    this.audio = null;
  }

  private speak(text: string, language: string): Promise<void> {
    if (typeof speechSynthesis === 'undefined' || text.trim() === '') return Promise.resolve();
    return new Promise((resolve) => {
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = language;
      const voice = browserVoiceFor(speechSynthesis.getVoices(), language);
      if (voice) utterance.voice = voice;
      const timer = setTimeout(resolve, speakingTimeMs(text));
      utterance.onend = utterance.onerror = () => {
        clearTimeout(timer);
        resolve();
      };
      speechSynthesis.speak(utterance);
    });
  }

  /** An <audio> element cannot send the bearer token: the sound is fetched, then played from an object URL. */
  private async play(audioId: number, generation: number): Promise<void> {
    const url = URL.createObjectURL(await api.blob(`${AUDIOS}/${audioId}/file`));
    try {
      if (generation !== this.generation) return;
      const audio = new Audio(url);
      this.audio = audio;
      await new Promise<void>((resolve) => {
        audio.onended = audio.onerror = audio.onpause = () => resolve();
        audio.play().catch(() => resolve());
      });
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}
