import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { api } from '../lib/api/client.ts';

export const locales = ['en', 'pt'] as const;
export type AppLocale = (typeof locales)[number];
export const LOCALE_KEY = 'locale';

type Catalogue = () => Promise<{ default: object }[]>;

/**
 * Each language is its own chunk, in two parts: what the sign-in screen needs (`en.json`, with the
 * error catalogue) and the texts of the screens behind it (`en.screens.json`), which arrive with
 * the layout.
 */
const core: Record<AppLocale, Catalogue> = {
  en: () => Promise.all([import('./en.json'), import('@voxplan/contracts/i18n/errors.en.json')]),
  pt: () => Promise.all([import('./pt.json'), import('@voxplan/contracts/i18n/errors.pt.json')]),
};
const screens: Record<AppLocale, Catalogue> = {
  en: () => Promise.all([import('./en.screens.json')]),
  pt: () => Promise.all([import('./pt.screens.json')]),
};

async function loadCore(locale: AppLocale): Promise<object> {
  const [app, errors] = await core[locale]();
  return { ...app!.default, errors: errors!.default };
}

const screensLoaded = new Set<AppLocale>();
let screensWanted = false;

async function addScreenTexts(locale: AppLocale): Promise<void> {
  if (screensLoaded.has(locale)) return;
  const [texts] = await screens[locale]();
  i18n.addResourceBundle(locale, 'translation', texts!.default, true, false);
  screensLoaded.add(locale);
}

/** Called with the layout's chunk: the screens' texts in the current language (and later ones). */
export async function loadScreenTexts(): Promise<void> {
  screensWanted = true;
  await addScreenTexts(i18n.language === 'pt' ? 'pt' : 'en');
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
    resources: { [lng]: { translation: await loadCore(lng) } },
    interpolation: { escapeValue: false },
  });
  applyLocale(lng);
  return i18n;
}

/** Switches the interface and the accept-language header, and remembers the choice. */
export async function changeLocale(locale: AppLocale): Promise<void> {
  if (!i18n.hasResourceBundle(locale, 'translation')) i18n.addResourceBundle(locale, 'translation', await loadCore(locale));
  if (screensWanted) await addScreenTexts(locale);
  localStorage.setItem(LOCALE_KEY, locale);
  applyLocale(locale);
  await i18n.changeLanguage(locale);
}
