/**
 * The languages a plan may speak and the voices each way of speaking offers in them: the one list
 * the editor's pickers, the plan's validation, the channels and the tests go by (docs/engine.md,
 * "Language and voices"). It imports nothing, so that the block definitions, the console and the
 * server can all read it.
 *
 * Sources:
 * - Twilio: the voices `<Say voice>` takes and the language each speaks, from Twilio's
 *   text-to-speech voice list, https://www.twilio.com/docs/voice/twiml/say/text-speech
 *   ("Available voices and languages": Amazon Polly standard and neural, Google standard, WaveNet
 *   and Neural2). `<Say>` warns that "using an invalid combination of voice and language may
 *   result in error and <Say> instruction failure" (https://www.twilio.com/docs/voice/twiml/say).
 * - espeak-ng (the server's text to speech, on Asterisk and for generated audios): each language's
 *   voice file from `espeak-ng --voices` (1.51), and the variants of `espeak-ng --voices=variant`
 *   that every language takes (`-v pt-br+f2`).
 */

export type TwilioVoiceEngine = 'polly' | 'polly-neural' | 'google-standard' | 'google-wavenet' | 'google-neural2';

export interface TwilioVoice {
  /** What `<Say voice>` takes: `Polly.Camila`, `Google.pt-BR-Wavenet-A`. */
  id: string;
  gender: 'female' | 'male';
  engine: TwilioVoiceEngine;
}

export interface PlanLanguage {
  /** BCP 47, as Twilio's `language` attributes and the browser's speech synthesis take it. */
  tag: string;
  /** The language's own name, the same in every console language. */
  name: string;
  /** espeak-ng's voice for it (`espeak-ng --voices`, column "Language"). */
  espeak: string;
  /** Twilio's voices that speak it; the first is the one a plan gets when it chooses none. */
  twilio: readonly TwilioVoice[];
}

const polly = (names: string, gender: TwilioVoice['gender']): TwilioVoice[] =>
  names.split(' ').map((name) => ({ id: `Polly.${name}`, gender, engine: 'polly' }));
const pollyNeural = (names: string, gender: TwilioVoice['gender']): TwilioVoice[] =>
  names.split(' ').map((name) => ({ id: `Polly.${name}-Neural`, gender, engine: 'polly-neural' }));
/** Google's voices are named `<tag>-<kind>-<letter>`; each letter's gender is Google's. */
const google = (tag: string, kind: 'Standard' | 'Wavenet' | 'Neural2', letters: Record<string, TwilioVoice['gender']>): TwilioVoice[] =>
  Object.entries(letters).map(([letter, gender]) => ({
    id: `Google.${tag}-${kind}-${letter}`,
    gender,
    engine: kind === 'Standard' ? 'google-standard' : kind === 'Wavenet' ? 'google-wavenet' : 'google-neural2',
  }));

export const planLanguages: readonly PlanLanguage[] = [
  {
    tag: 'pt-BR',
    name: 'Português (Brasil)',
    espeak: 'pt-br',
    twilio: [
      ...polly('Camila Vitoria', 'female'),
      ...polly('Ricardo', 'male'),
      ...pollyNeural('Camila Vitoria', 'female'),
      ...pollyNeural('Thiago', 'male'),
      ...google('pt-BR', 'Standard', { A: 'female', B: 'male', C: 'female' }),
      ...google('pt-BR', 'Wavenet', { A: 'female', B: 'male', C: 'female' }),
      ...google('pt-BR', 'Neural2', { A: 'female', B: 'male', C: 'female' }),
    ],
  },
  {
    tag: 'pt-PT',
    name: 'Português (Portugal)',
    espeak: 'pt',
    twilio: [
      ...polly('Ines', 'female'),
      ...polly('Cristiano', 'male'),
      ...pollyNeural('Ines', 'female'),
      ...google('pt-PT', 'Standard', { A: 'female', B: 'male', C: 'male', D: 'female' }),
      ...google('pt-PT', 'Wavenet', { A: 'female', B: 'male', C: 'male', D: 'female' }),
    ],
  },
  {
    tag: 'en-US',
    name: 'English (United States)',
    espeak: 'en-us',
    twilio: [
      ...polly('Joanna Ivy Kendra Kimberly Salli', 'female'),
      ...polly('Joey Justin Matthew', 'male'),
      ...pollyNeural('Joanna Ivy Kendra Kimberly Salli Danielle Ruth', 'female'),
      ...pollyNeural('Joey Justin Kevin Matthew Gregory Stephen', 'male'),
      ...google('en-US', 'Standard', { A: 'male', B: 'male', C: 'female', D: 'male', E: 'female', F: 'female', G: 'female', H: 'female', I: 'male', J: 'male' }),
      ...google('en-US', 'Wavenet', { A: 'male', B: 'male', C: 'female', D: 'male', E: 'female', F: 'female', G: 'female', H: 'female', I: 'male', J: 'male' }),
      ...google('en-US', 'Neural2', { A: 'male', C: 'female', D: 'male', E: 'female', F: 'female', G: 'female', H: 'female', I: 'male', J: 'male' }),
    ],
  },
  {
    tag: 'en-GB',
    name: 'English (United Kingdom)',
    espeak: 'en-gb',
    twilio: [
      ...polly('Amy Emma', 'female'),
      ...polly('Brian', 'male'),
      ...pollyNeural('Amy Emma', 'female'),
      ...pollyNeural('Brian Arthur', 'male'),
      ...google('en-GB', 'Standard', { A: 'female', B: 'male', C: 'female', D: 'male', F: 'female' }),
      ...google('en-GB', 'Wavenet', { A: 'female', B: 'male', C: 'female', D: 'male', F: 'female' }),
      ...google('en-GB', 'Neural2', { A: 'female', B: 'male', C: 'female', D: 'male', F: 'female' }),
    ],
  },
  {
    tag: 'es-ES',
    name: 'Español (España)',
    espeak: 'es',
    twilio: [
      ...polly('Conchita Lucia', 'female'),
      ...polly('Enrique', 'male'),
      ...pollyNeural('Lucia', 'female'),
      ...pollyNeural('Sergio', 'male'),
      ...google('es-ES', 'Standard', { A: 'female', B: 'male', C: 'female', D: 'female' }),
      ...google('es-ES', 'Wavenet', { B: 'male', C: 'female', D: 'female' }),
      ...google('es-ES', 'Neural2', { A: 'female', B: 'male', C: 'female', D: 'female', E: 'female', F: 'male' }),
    ],
  },
  {
    tag: 'es-MX',
    name: 'Español (México)',
    espeak: 'es-419',
    twilio: [
      ...polly('Mia', 'female'),
      ...pollyNeural('Mia', 'female'),
      ...pollyNeural('Andres', 'male'),
    ],
  },
  {
    tag: 'es-US',
    name: 'Español (Estados Unidos)',
    espeak: 'es-419',
    twilio: [
      ...polly('Lupe Penelope', 'female'),
      ...polly('Miguel', 'male'),
      ...pollyNeural('Lupe', 'female'),
      ...pollyNeural('Pedro', 'male'),
      ...google('es-US', 'Standard', { A: 'female', B: 'male', C: 'male' }),
      ...google('es-US', 'Wavenet', { A: 'female', B: 'male', C: 'male' }),
      ...google('es-US', 'Neural2', { A: 'female', B: 'male', C: 'male' }),
    ],
  },
  {
    tag: 'fr-FR',
    name: 'Français (France)',
    espeak: 'fr-fr',
    twilio: [
      ...polly('Celine Lea', 'female'),
      ...polly('Mathieu', 'male'),
      ...pollyNeural('Lea', 'female'),
      ...pollyNeural('Remi', 'male'),
      ...google('fr-FR', 'Standard', { A: 'female', B: 'male', C: 'female', D: 'male', E: 'female' }),
      ...google('fr-FR', 'Wavenet', { A: 'female', B: 'male', C: 'female', D: 'male', E: 'female' }),
      ...google('fr-FR', 'Neural2', { A: 'female', B: 'male', C: 'female', D: 'male', E: 'female' }),
    ],
  },
  {
    tag: 'de-DE',
    name: 'Deutsch (Deutschland)',
    espeak: 'de',
    twilio: [
      ...polly('Marlene Vicki', 'female'),
      ...polly('Hans', 'male'),
      ...pollyNeural('Vicki', 'female'),
      ...pollyNeural('Daniel', 'male'),
      ...google('de-DE', 'Standard', { A: 'female', B: 'male', C: 'female', D: 'male', E: 'male', F: 'female' }),
      ...google('de-DE', 'Wavenet', { A: 'female', B: 'male', C: 'female', D: 'male', E: 'male', F: 'female' }),
      ...google('de-DE', 'Neural2', { A: 'female', B: 'male', C: 'female', D: 'male', F: 'female' }),
    ],
  },
  {
    tag: 'it-IT',
    name: 'Italiano (Italia)',
    espeak: 'it',
    twilio: [
      ...polly('Carla Bianca', 'female'),
      ...polly('Giorgio', 'male'),
      ...pollyNeural('Bianca', 'female'),
      ...pollyNeural('Adriano', 'male'),
      ...google('it-IT', 'Standard', { A: 'female', B: 'female', C: 'male', D: 'male' }),
      ...google('it-IT', 'Wavenet', { A: 'female', B: 'female', C: 'male', D: 'male' }),
      ...google('it-IT', 'Neural2', { A: 'female', C: 'male' }),
    ],
  },
];

export const planLanguageTags = planLanguages.map((language) => language.tag) as [string, ...string[]];

/**
 * espeak-ng's voice variants a plan may choose (`espeak-ng --voices=variant`, files `!v/m1`…):
 * the classic male and female ones. A variant changes how any language sounds, so each speaks
 * every language of the list.
 */
export const espeakVoices: ReadonlyArray<{ id: string; gender: 'female' | 'male' }> = [
  ...['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'].map((id) => ({ id, gender: 'male' as const })),
  ...['f1', 'f2', 'f3', 'f4', 'f5'].map((id) => ({ id, gender: 'female' as const })),
];
export const espeakVoiceIds = espeakVoices.map((voice) => voice.id) as [string, ...string[]];

/** The language the server speaks in when neither the plan nor its tenant names one (`DEFAULT_LANGUAGE`). */
export const serverDefaultLanguage = 'en-US';

const byTag = new Map(planLanguages.map((language) => [language.tag.toLowerCase(), language]));

/** The list's entry for a tag, matched without regard to case (`pt-br` is `pt-BR`). */
export function planLanguageOf(tag: string): PlanLanguage | undefined {
  return byTag.get(tag.toLowerCase());
}

export const isPlanLanguage = (tag: string): boolean => planLanguageOf(tag) !== undefined;

/** Whether Twilio's voice speaks the language: a voice for another one can make `<Say>` fail. */
export function twilioVoiceSpeaks(voice: string, tag: string): boolean {
  return planLanguageOf(tag)?.twilio.some((candidate) => candidate.id === voice) ?? false;
}

/** The Twilio voice of a prompt in `tag`: the plan's when it speaks that language, else the language's first. */
export function twilioVoiceFor(tag: string, chosen?: string): string | undefined {
  if (chosen && twilioVoiceSpeaks(chosen, tag)) return chosen;
  return planLanguageOf(tag)?.twilio[0]?.id;
}

/**
 * espeak-ng's language for a tag: the list's, else the tag lowercased (espeak-ng's own spelling,
 * `de-AT` → `de-at`), for speech detection blocks that name a language outside the list.
 */
export function espeakLanguageFor(tag: string): string {
  return planLanguageOf(tag)?.espeak ?? tag.toLowerCase();
}
