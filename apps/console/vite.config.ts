import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The HTML entry and its own module: they stay the entry chunk, which the manifest marks as the entry. */
const entryModules = /(?:^|[\\/])(?:index\.html|main\.tsx)$|modulepreload-polyfill/;

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/api': 'http://localhost:8080' } },
  build: {
    outDir: 'dist',
    sourcemap: false,
    manifest: true,
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // Every screen loads what the entry imports statically before it runs, so those modules
          // go in one chunk: left alone, rolldown cuts them into a dozen by which lazy screens share
          // them, and gzip then compresses each piece without the others' words (7 KB more on the
          // sign-in route) for no screen's gain.
          groups: [
            { name: 'app', tags: ['$initial'], test: (id) => !entryModules.test(id) },
            // What every signed-in screen loads first and the sign-in form does not (a page opened
            // at /login loads it once signed in, App.tsx): the router, the query cache, the routes.
            // One chunk rather than the pieces rolldown would cut by which screens share them.
            { name: 'screens', test: /node_modules[\\/](react-router|@tanstack)[\\/]|src[\\/]app[\\/](router|routes|guard|signed-in-queries)\.tsx$/ },
            // Mantine's inputs, buttons and text blocks: the sign-in form's, and nearly every screen's.
            // In one chunk they are 11 KB gzip; in the fifteen rolldown made of them, 17 KB.
            { name: 'ui', test: /@mantine[\\/]core[\\/]esm[\\/]components[\\/](Input|InputBase|TextInput|PasswordInput|Button|UnstyledButton|Transition|ActionIcon|Paper|Group|Stack|Text|Title|Alert|CloseButton)[\\/]/ },
          ],
        },
      },
    },
  },
});
