/**
 * What the server itself says on a call, outside any plan (docs/sessions.md, "System messages"):
 * in the language of the number's tenant, else the server's (`DEFAULT_LANGUAGE`). One small
 * catalogue per language, so a channel asks for a message by name and gets it in the caller's
 * language with the tag its text to speech needs.
 */
import { planLanguageOf } from '@voxplan/contracts/voices';
import type { AppContext } from '../../context.ts';

/** By the language's first subtag: one text serves every region of a language (pt-BR, pt-PT). */
const catalogue = {
  en: {
    not_in_service: 'The number you have called is not in service. Goodbye.',
    plan_cannot_start: 'This service is not available right now. Please call again later. Goodbye.',
    lines_busy: 'All our lines are busy. Please call again later. Goodbye.',
  },
  pt: {
    not_in_service: 'O número para o qual você ligou não está em serviço. Até logo.',
    plan_cannot_start: 'Este serviço não está disponível no momento. Por favor, ligue mais tarde. Até logo.',
    lines_busy: 'Todas as nossas linhas estão ocupadas. Por favor, ligue mais tarde. Até logo.',
  },
  es: {
    not_in_service: 'El número al que ha llamado no está en servicio. Adiós.',
    plan_cannot_start: 'Este servicio no está disponible en este momento. Por favor, llame más tarde. Adiós.',
    lines_busy: 'Todas nuestras líneas están ocupadas. Por favor, llame más tarde. Adiós.',
  },
  fr: {
    not_in_service: "Le numéro que vous avez demandé n'est pas en service. Au revoir.",
    plan_cannot_start: "Ce service n'est pas disponible pour le moment. Veuillez rappeler plus tard. Au revoir.",
    lines_busy: 'Toutes nos lignes sont occupées. Veuillez rappeler plus tard. Au revoir.',
  },
  de: {
    not_in_service: 'Die gewählte Rufnummer ist nicht vergeben. Auf Wiederhören.',
    plan_cannot_start: 'Dieser Dienst ist derzeit nicht verfügbar. Bitte rufen Sie später erneut an. Auf Wiederhören.',
    lines_busy: 'Alle unsere Leitungen sind besetzt. Bitte rufen Sie später erneut an. Auf Wiederhören.',
  },
  it: {
    not_in_service: 'Il numero chiamato non è in servizio. Arrivederci.',
    plan_cannot_start: 'Questo servizio non è disponibile al momento. La preghiamo di richiamare più tardi. Arrivederci.',
    lines_busy: 'Tutte le nostre linee sono occupate. La preghiamo di richiamare più tardi. Arrivederci.',
  },
} as const satisfies Record<string, Record<string, string>>;

export type SystemMessageName = keyof (typeof catalogue)['en'];

/** A message to speak: its text, and the language (BCP 47) it is written in. */
export interface SystemMessage {
  text: string;
  language: string;
}

const fallbackLanguage = 'en-US';

/**
 * The message in `language` (a tag of the voices list); a language the catalogue has no texts for
 * says the English one, in English, rather than English words in another language's voice.
 */
export function systemMessage(name: SystemMessageName, language: string): SystemMessage {
  const tag = planLanguageOf(language)?.tag ?? language;
  const primary = tag.split('-')[0]!.toLowerCase();
  if (Object.hasOwn(catalogue, primary)) return { text: catalogue[primary as keyof typeof catalogue][name], language: tag };
  return { text: catalogue.en[name], language: fallbackLanguage };
}

/**
 * The language a tenant's calls speak when their plan names none: the tenant's, else the server's.
 * Through the read cache (every call asks), kept until `tenants` is written on any instance.
 */
export async function tenantLanguage(ctx: Pick<AppContext, 'db' | 'config' | 'readCache'>, tenantId: number | undefined): Promise<string> {
  if (tenantId === undefined) return ctx.config.defaultLanguage;
  const stored = await ctx.readCache.read(`tenant-language\u0000${tenantId}`, ['tenants'], async () => {
    const row = await ctx.db.selectFrom('tenants').select('language').where('id', '=', tenantId).executeTakeFirst();
    return row?.language ?? '';
  });
  return planLanguageOf(stored)?.tag ?? ctx.config.defaultLanguage;
}
