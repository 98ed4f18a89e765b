import { type CSSVariablesResolver, localStorageColorSchemeManager, MantineProvider, mergeThemeOverrides } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { BrowserRouter } from 'react-router';
import { AuthProvider } from '../lib/auth.tsx';
import { ApiError } from '../lib/api/client.ts';
import { translatedComponentLabels } from './mantine-labels.ts';
import { AppRoutes } from './router.tsx';
import { theme, TOAST_MS } from './theme.ts';

export const COLOR_SCHEME_KEY = 'color-scheme';

// Toasts are queued in Mantine's store until this container arrives, so it need not hold up the
// first screen.
const Notifications = lazy(() => import('./toast-container.ts').then((module) => ({ default: module.Notifications })));

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

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not get better by asking again.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: false,
    },
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
      <QueryClientProvider client={queryClient}>
        <AuthProvider>
          <Suspense>
            <Notifications position="top-center" autoClose={TOAST_MS} />
          </Suspense>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </AuthProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
