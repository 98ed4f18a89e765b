import type { MantineThemeComponents } from '@mantine/core';
import type { TFunction } from 'i18next';

/**
 * Mantine writes a few labels of its own in English (PasswordInput's visibility button says
 * "Toggle password visibility" to screen readers): the theme gives each a translated one.
 * `npm run check` lists the components that carry such a label and fails when one the console
 * uses is missing here.
 */
export function translatedComponentLabels(t: TFunction): MantineThemeComponents {
  return {
    PasswordInput: { defaultProps: { visibilityToggleButtonProps: { 'aria-label': t('common.togglePasswordVisibility') } } },
    // FileInput's clear button has no label at all: screen readers would announce a nameless button.
    FileInput: { defaultProps: { clearButtonProps: { 'aria-label': t('common.clearFile') } } },
  };
}
