import { errorMessages } from '@voxplan/contracts';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { api } from '../lib/api/client.ts';
import en from './en.json';
import pt from './pt.json';

export const locales = ['en', 'pt'] as const;
export type AppLocale = (typeof locales)[number];
export const LOCALE_KEY = 'locale';

/** Spec section 4: the stored choice, else the browser's language if pt or en, else English. */
export function initialLocale(): AppLocale {
  const stored = localStorage.getItem(LOCALE_KEY);
  if (stored === 'en' || stored === 'pt') return stored;
  const browser = (navigator.language || 'en').split('-')[0];
  return browser === 'pt' ? 'pt' : 'en';
}

const acceptLanguageOf = (locale: AppLocale): string => (locale === 'pt' ? 'pt-BR' : 'en');

export async function setupI18n(): Promise<typeof i18n> {
  const lng = initialLocale();
  await i18n.use(initReactI18next).init({
    lng,
    fallbackLng: 'en',
    resources: {
      en: { translation: { ...en, errors: errorMessages.en } },
      pt: { translation: { ...pt, errors: errorMessages.pt } },
    },
    interpolation: { escapeValue: false },
  });
  api.acceptLanguage = acceptLanguageOf(lng);
  document.documentElement.lang = lng === 'pt' ? 'pt-BR' : 'en';
  i18n.on('languageChanged', (next) => {
    const locale: AppLocale = next === 'pt' ? 'pt' : 'en';
    localStorage.setItem(LOCALE_KEY, locale);
    api.acceptLanguage = acceptLanguageOf(locale);
    document.documentElement.lang = locale === 'pt' ? 'pt-BR' : 'en';
  });
  return i18n;
}
