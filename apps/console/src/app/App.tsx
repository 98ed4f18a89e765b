import { type CSSVariablesResolver, localStorageColorSchemeManager, MantineProvider, mergeThemeOverrides } from '@mantine/core';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthProvider } from '../lib/auth.tsx';
import { translatedComponentLabels } from './mantine-labels.ts';
import { FullPageLoader } from './FullPageLoader.tsx';
import { theme, TOAST_MS } from './theme.ts';

export const COLOR_SCHEME_KEY = 'color-scheme';

// Toasts are queued in Mantine's store until this container arrives, so it need not hold up the
// first screen.
const Notifications = lazy(() => import('./toast-container.ts').then((module) => ({ default: module.Notifications })));
const loadRoutedScreens = () => import('./router.tsx');
const RoutedScreens = lazy(loadRoutedScreens);
const LoginPage = lazy(() => import('../features/login/LoginPage.tsx'));

const isSignInPath = (path: string) => /^\/login\/?$/i.test(path);

/** Where a protected screen sent the user to sign in (React Router keeps its state in the history entry's `usr`). */
function fromOfHistory(): string | undefined {
  const state: unknown = window.history.state;
  if (typeof state !== 'object' || state === null || !('usr' in state)) return undefined;
  const from: unknown = (state.usr as { from?: unknown } | null)?.from;
  return typeof from === 'string' ? from : undefined;
}

/**
 * A page opened at /login shows the sign-in form without the router and the screens behind it:
 * they load once the user is signed in, at the screen they were going to. Anywhere else, and at
 * /login reached from inside the console, the router draws the screens (and the same form).
 */
function Screens() {
  const [signingIn, setSigningIn] = useState(() => isSignInPath(window.location.pathname));
  if (signingIn) {
    return (
      <Suspense fallback={<FullPageLoader />}>
        <LoginPage
          from={fromOfHistory()}
          preload={loadRoutedScreens}
          onSignedIn={(to) => {
            window.history.replaceState(null, '', to);
            setSigningIn(false);
          }}
        />
      </Suspense>
    );
  }
  return (
    <Suspense fallback={<FullPageLoader />}>
      <RoutedScreens />
    </Suspense>
  );
}

/**
 * Mantine's dimmed and error text, and the brand blue on a dark header, fall under WCAG AA's 4.5:1
 * at small sizes; these shades keep the same look and pass in both schemes.
 */
const contrastSafeColors: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-8)',
    '--app-brand-text': 'var(--mantine-color-brand-7)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--app-brand-text': 'var(--mantine-color-brand-3)',
  },
});

export function App() {
  const { t } = useTranslation();
  const translatedTheme = useMemo(() => mergeThemeOverrides(theme, { components: translatedComponentLabels(t) }), [t]);
  return (
    <MantineProvider
      theme={translatedTheme}
      defaultColorScheme="auto"
      cssVariablesResolver={contrastSafeColors}
      colorSchemeManager={localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY })}
    >
      <AuthProvider>
        <Suspense>
          <Notifications position="top-center" autoClose={TOAST_MS} />
        </Suspense>
        <Screens />
      </AuthProvider>
    </MantineProvider>
  );
}
