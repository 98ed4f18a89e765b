import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { api } from '../lib/api/client.ts';

export const locales = ['en', 'pt'] as const;
export type AppLocale = (typeof locales)[number];
export const LOCALE_KEY = 'locale';

/** Each language is its own chunk: the first screen loads only the one it shows. */
const catalogues: Record<AppLocale, () => Promise<[{ default: object }, { default: object }]>> = {
  en: () => Promise.all([import('./en.json'), import('@voxplan/contracts/i18n/errors.en.json')]),
  pt: () => Promise.all([import('./pt.json'), import('@voxplan/contracts/i18n/errors.pt.json')]),
};

async function loadCatalogue(locale: AppLocale): Promise<object> {
  const [app, errors] = await catalogues[locale]();
  return { ...app.default, errors: errors.default };
}

/** Spec section 4: the stored choice, else the browser's language if pt or en, else English. */
export function initialLocale(): AppLocale {
  const stored = localStorage.getItem(LOCALE_KEY);
  if (stored === 'en' || stored === 'pt') return stored;
  const browser = (navigator.language || 'en').split('-')[0];
  return browser === 'pt' ? 'pt' : 'en';
}

const acceptLanguageOf = (locale: AppLocale): string => (locale === 'pt' ? 'pt-BR' : 'en');

function applyLocale(locale: AppLocale): void {
  api.acceptLanguage = acceptLanguageOf(locale);
  document.documentElement.lang = locale === 'pt' ? 'pt-BR' : 'en';
}

export async function setupI18n(): Promise<typeof i18n> {
  const lng = initialLocale();
  await i18n.use(initReactI18next).init({
    lng,
    fallbackLng: false,
    partialBundledLanguages: true,
    resources: { [lng]: { translation: await loadCatalogue(lng) } },
    interpolation: { escapeValue: false },
  });
  applyLocale(lng);
  return i18n;
}

/** Switches the interface and the accept-language header, and remembers the choice. */
export async function changeLocale(locale: AppLocale): Promise<void> {
  if (!i18n.hasResourceBundle(locale, 'translation')) i18n.addResourceBundle(locale, 'translation', await loadCatalogue(locale));
  localStorage.setItem(LOCALE_KEY, locale);
  applyLocale(locale);
  await i18n.changeLanguage(locale);
}
