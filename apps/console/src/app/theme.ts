import { createTheme, Loader, type MantineColorsTuple } from '@mantine/core';

/** Spec section 1: the brand palette is a blue scale, shades 50 to 900, main shade 500. */
export const brandPalette: MantineColorsTuple = [
  '#eff6ff', // 50
  '#dbeafe', // 100
  '#bfdbfe', // 200
  '#93c5fd', // 300
  '#60a5fa', // 400
  '#3b82f6', // 500
  '#2563eb', // 600
  '#1d4ed8', // 700
  '#1e40af', // 800
  '#1e3a8a', // 900
];

/** Seventeen fixed colours, so that items (plans, series) keep a distinct colour each (spec section 9). */
export const accentColors = [
  'red', 'pink', 'grape', 'violet', 'indigo', 'blue', 'cyan', 'teal', 'green', 'lime',
  'yellow', 'orange', 'brand', 'dark', 'gray', 'red.9', 'teal.9',
] as const;

export const accentColor = (index: number): string => accentColors[Math.abs(index) % accentColors.length]!;

export const theme = createTheme({
  primaryColor: 'indigo',
  // Shade 7 keeps white text on primary buttons at a WCAG AA contrast in both schemes.
  primaryShade: { light: 7, dark: 7 },
  colors: { brand: brandPalette },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  components: {
    // A spinner is a live region: its aria-label ("Loading") is prohibited on a span without a role.
    Loader: Loader.extend({ defaultProps: { role: 'status' } }),
  },
});

/** Spec section 9: modal sizes xs to 9xl, screen-sm to 2xl, full, cover and auto; 30 rem at least by default. */
const modalWidths = {
  xs: '20rem', sm: '24rem', md: '28rem', lg: '32rem', xl: '36rem', '2xl': '42rem', '3xl': '48rem', '4xl': '56rem',
  '5xl': '64rem', '6xl': '72rem', '7xl': '80rem', '8xl': '88rem', '9xl': '96rem',
  'screen-sm': '640px', 'screen-md': '768px', 'screen-lg': '1024px', 'screen-xl': '1280px', 'screen-2xl': '1536px',
  full: '100%', cover: '100vw', auto: 'auto',
} as const;
export type ModalSize = keyof typeof modalWidths;
export const modalWidth = (size: ModalSize): string => modalWidths[size];
export const MODAL_MIN_WIDTH = '30rem';
/** Spec section 9: a modal takes 500 ms to close. */
export const MODAL_CLOSE_MS = 500;
export const TOAST_MS = 3000;
