import fs from 'node:fs/promises';
import type { AudioVoices } from '@voxplan/contracts';
import type OpenAI from 'openai';
import type { Synthesizer } from '../audios/tts-jobs.ts';

/** An AI voice's id on an audio: the provider's voice name after this prefix, apart from espeak-ng's variants. */
export const AI_VOICE_PREFIX = 'openai-';

/** OpenAI's text-to-speech voices (audio/speech). */
const openAiVoices = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse'] as const;

export const aiVoices: AudioVoices['ai_voices'] = openAiVoices.map((voice) => ({ id: `${AI_VOICE_PREFIX}${voice}`, name: voice[0]!.toUpperCase() + voice.slice(1) }));

export const isAiVoice = (voice: string): boolean => voice.startsWith(AI_VOICE_PREFIX);

/** Speaks each part through the provider's audio/speech endpoint, as WAV for the parts to be joined. */
export function aiSynthesizer(client: OpenAI, model: string, voice: string): Synthesizer {
  const name = voice.slice(AI_VOICE_PREFIX.length);
  return {
    async speak(textFile, output, signal) {
      const input = await fs.readFile(textFile, 'utf8');
      const response = await client.audio.speech.create({ model, voice: name, input, response_format: 'wav' }, { signal });
      await fs.writeFile(output, Buffer.from(await response.arrayBuffer()));
    },
  };
}
