/**
 * The tenant a fresh install starts with, so that the administrator's first user, number and plan
 * have somewhere to go. Named in the server's language (`DEFAULT_LANGUAGE`), lowercased as every
 * tenant name is (spec section 5); the administrator may rename it.
 */
import { planLanguageOf } from '@voxplan/contracts/voices';

/** By the language's first subtag: one name serves every region of a language. */
const names: Record<string, string> = {
  en: 'default',
  pt: 'padrão',
  es: 'predeterminado',
  fr: 'défaut',
  de: 'standard',
  it: 'predefinito',
};

/** The default tenant's name in `language` (a tag of the voices list); English for a language without one. */
export function defaultTenantName(language: string): string {
  const tag = planLanguageOf(language)?.tag ?? language;
  const primary = tag.split('-')[0]!.toLowerCase();
  return names[primary] ?? names.en!;
}
