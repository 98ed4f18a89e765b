import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { api } from '../lib/api/client.ts';

export const locales = ['en', 'pt'] as const;
export type AppLocale = (typeof locales)[number];
export const LOCALE_KEY = 'locale';

type Catalogue = () => Promise<{ default: object }>;

/**
 * Each language is its own chunks, by area: what the sign-in screen shows (`en.json`), the error
 * catalogue (asked for by the sign-in form when it sends, and with the screens behind it) and the
 * texts of those screens (`en.screens.json`), which arrive with the layout. Only the current
 * language is loaded; another one when the user switches to it.
 */
const core: Record<AppLocale, Catalogue> = {
  en: () => import('./en.json'),
  pt: () => import('./pt.json'),
};
const errorCatalogues: Record<AppLocale, Catalogue> = {
  en: () => import('@voxplan/contracts/i18n/errors.en.json'),
  pt: () => import('@voxplan/contracts/i18n/errors.pt.json'),
};
const screens: Record<AppLocale, Catalogue> = {
  en: () => import('./en.screens.json'),
  pt: () => import('./pt.screens.json'),
};
// A staged rollout's texts come with its screens (the publish dialog, the versions drawer, the dashboard's badge), not with every screen.
const rollouts: Record<AppLocale, Catalogue> = {
  en: () => import('./en.rollouts.json'),
  pt: () => import('./pt.rollouts.json'),
};

/** A part of the catalogue in one language, added to what i18next holds, once (its promise is shared). */
class CataloguePart {
  private readonly loading = new Map<AppLocale, Promise<void>>();
  /** Set once a screen asked for it: a language switched to later gets it too. */
  wanted = false;

  constructor(private readonly load: (locale: AppLocale) => Promise<object>) {}

  add(locale: AppLocale): Promise<void> {
    this.wanted = true;
    let loading = this.loading.get(locale);
    if (!loading) {
      loading = this.load(locale).then((texts) => {
        i18n.addResourceBundle(locale, 'translation', texts, true, false);
      });
      // A failed download may be asked for again.
      loading.catch(() => this.loading.delete(locale));
      this.loading.set(locale, loading);
    }
    return loading;
  }
}

const errorTexts = new CataloguePart(async (locale) => ({ errors: (await errorCatalogues[locale]()).default }));
const screenTexts = new CataloguePart(async (locale) => (await screens[locale]()).default);
const rolloutTexts = new CataloguePart(async (locale) => (await rollouts[locale]()).default);

/** The languages whose sign-in texts i18next holds. */
const coreLoaded = new Set<AppLocale>();

const currentLocale = (): AppLocale => (i18n.language === 'pt' ? 'pt' : 'en');

/** Called with the layout's chunk: the screens' texts and the error catalogue in the current language (and later ones). */
export async function loadScreenTexts(): Promise<void> {
  await Promise.all([screenTexts.add(currentLocale()), errorTexts.add(currentLocale())]);
}

/** A staged rollout's texts in the current language (and later ones): loaded with the screens that show a rollout. */
export function loadRolloutTexts(): Promise<void> {
  return rolloutTexts.add(currentLocale());
}

/** The error catalogue in the current language (and later ones), for a form that may show an error before the screens load. */
export function loadErrorTexts(): Promise<void> {
  return errorTexts.add(currentLocale());
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
    resources: { [lng]: { translation: (await core[lng]()).default } },
    interpolation: { escapeValue: false },
  });
  coreLoaded.add(lng);
  applyLocale(lng);
  return i18n;
}

/** Switches the interface and the accept-language header, and remembers the choice. */
export async function changeLocale(locale: AppLocale): Promise<void> {
  const parts = [errorTexts, screenTexts, rolloutTexts].filter((part) => part.wanted).map((part) => part.add(locale));
  if (!coreLoaded.has(locale)) {
    // Merged over what may have arrived first, and winning over it, as when it is loaded first.
    i18n.addResourceBundle(locale, 'translation', (await core[locale]()).default, true, true);
    coreLoaded.add(locale);
  }
  await Promise.all(parts);
  localStorage.setItem(LOCALE_KEY, locale);
  applyLocale(locale);
  await i18n.changeLanguage(locale);
}
