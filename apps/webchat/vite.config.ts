import { defineConfig } from 'vite';

/**
 * The widget is one classic script that other sites' pages load with a <script> tag: an IIFE with
 * everything inside (no chunks, no CSS file, no import of the console), kept small (≤ 30 KB gzip,
 * checked by apps/console/e2e/webchat.test.ts).
 */
export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2020',
    lib: { entry: 'src/widget.ts', formats: ['iife'], name: 'VoxplanWebchat', fileName: () => 'widget.js' },
  },
});
