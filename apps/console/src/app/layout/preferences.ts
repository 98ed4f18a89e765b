import { useLocalStorage } from '@mantine/hooks';

export type LayoutKind = 'side' | 'top';

/** Layout and full-screen choices, remembered in the browser. */
export function useLayoutPreferences() {
  const [layout, setLayout] = useLocalStorage<LayoutKind>({ key: 'layout', defaultValue: 'side' });
  const [fullscreen, setFullscreen] = useLocalStorage<boolean>({ key: 'fullscreen', defaultValue: false });
  return { layout, setLayout, fullscreen, setFullscreen };
}
