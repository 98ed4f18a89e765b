import { useMediaQuery } from '@mantine/hooks';

/**
 * Every action of the Conversations screen has a key (issue 30). Alt combinations work while the
 * composer has the focus; `?` (outside a field) lists them. One list, read by the hotkeys, the
 * tooltips and the "?" dialog, so that a tooltip never names a key that does nothing. The Alt keys
 * are matched by their place on the keyboard: on a Mac, Alt + T types "†".
 */
export const conversationShortcuts = {
  waiting: 'alt+W',
  mine: 'alt+O',
  closed: 'alt+L',
  next: 'alt+ArrowDown',
  previous: 'alt+ArrowUp',
  take: 'alt+T',
  transfer: 'alt+R',
  resolve: 'alt+X',
  backToPlan: 'alt+B',
  attach: 'alt+U',
  compose: 'alt+M',
  presence: 'alt+P',
  help: 'shift+?',
} as const;
export type ShortcutAction = keyof typeof conversationShortcuts;

/** How a key is written for a person: `Alt + T`. */
export function shortcutLabel(action: ShortcutAction): string {
  if (action === 'help') return '?';
  return conversationShortcuts[action]
    .split('+')
    .map((part) => (part === 'alt' ? 'Alt' : part === 'ArrowDown' ? '↓' : part === 'ArrowUp' ? '↑' : part))
    .join(' + ');
}

/** The composer's own keys, written as the keyboard names them. */
export const composerKeys = { send: 'Enter', newLine: 'Shift + Enter' } as const;

/**
 * Whether the keys are worth naming: not where the primary pointer is a finger (a phone, a tablet),
 * which has no keyboard to press them with (issue 36). Read at once, so a phone never shows them.
 */
export function useShortcutHints(): boolean {
  return !useMediaQuery('(pointer: coarse)', false, { getInitialValueInEffect: false });
}
