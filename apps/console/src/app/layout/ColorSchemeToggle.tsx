import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';

// Drawn here rather than taken from the icon library: this button is on the sign-in screen, and
// the library's shared component code would be a few kilobytes of it.
const strokeProps = { width: 18, height: 18, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;
const SunIcon = () => (
  <svg {...strokeProps} aria-hidden="true">
    <circle cx="12" cy="12" r="4" />
    <path d="M3 12h1m8-9v1m8 8h1m-9 8v1M5.6 5.6l.7.7m12.1-.7-.7.7m0 11.4.7.7m-12.1-.7-.7.7" />
  </svg>
);
const MoonIcon = () => (
  <svg {...strokeProps} aria-hidden="true">
    <path d="M12 3a6 6 0 0 0 9 9 9 9 0 1 1-9-9z" />
  </svg>
);

/**
 * Spec section 4: the toggle sets light or dark; picking the scheme the system prefers goes back to
 * auto, so the console follows the system again.
 */
export function ColorSchemeToggle() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light');
  const system = useColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  const label = t(next === 'dark' ? 'layout.darkMode' : 'layout.lightMode');
  // A native title rather than Mantine's Tooltip: the sign-in screen shows this button, and the
  // tooltip's positioning library would double what that screen loads.
  return (
      <ActionIcon
        title={label}
        variant="default"
        size="lg"
        aria-label={label}
        data-testid="color-scheme-toggle"
        onClick={() => setColorScheme(next === system ? 'auto' : next)}
      >
        {computed === 'dark' ? <SunIcon /> : <MoonIcon />}
      </ActionIcon>
  );
}
