import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { setupI18n } from './i18n/index.ts';

await setupI18n();
createRoot(document.getElementById('root')!).render(<App />);
