import { type CSSVariablesResolver, localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { AuthProvider } from '../lib/auth.tsx';
import { ApiError } from '../lib/api/client.ts';
import { router } from './router.tsx';
import { theme } from './theme.ts';

export const COLOR_SCHEME_KEY = 'color-scheme';

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
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      cssVariablesResolver={contrastSafeColors}
      colorSchemeManager={localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY })}
    >
      <QueryClientProvider client={queryClient}>
        <AuthProvider>
          <Notifications position="top-center" autoClose={3000} />
          <RouterProvider router={router} />
        </AuthProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
