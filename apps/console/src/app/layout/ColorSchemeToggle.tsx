import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { IconMoon, IconSun } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

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
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
  );
}
