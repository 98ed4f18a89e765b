// The toast container's own module for App's lazy import. Imported from '@mantine/notifications'
// itself, the container would share that module with lib/notify.ts's static import of the store,
// and the bundler would then keep it (and its transitions, drag and scroll-lock code, 11 KB gzip)
// in the first screen's chunks instead of a chunk of its own.
export { Notifications } from '@mantine/notifications';
