import { useLocalStorage } from '@mantine/hooks';

const ALERTS_KEY = 'conversations-alerts';

/** Opt-in: a sound and a browser notification when a chat starts waiting. Kept per browser. */
export function useChatAlerts(): [boolean, (on: boolean) => Promise<void>] {
  const [on, setOn] = useLocalStorage<boolean>({ key: ALERTS_KEY, defaultValue: false, getInitialValueInEffect: false });
  const change = async (next: boolean) => {
    // The browser asks the person once; a refusal still leaves the sound.
    if (next && typeof Notification !== 'undefined' && Notification.permission === 'default') await Notification.requestPermission().catch(() => undefined);
    setOn(next);
  };
  return [on, change];
}

/** A short two-tone chime made on the spot, so no audio file travels with the console. */
function chime(): void {
  const AudioContextClass = window.AudioContext as typeof AudioContext | undefined;
  if (!AudioContextClass) return;
  const context = new AudioContextClass();
  const gain = context.createGain();
  gain.gain.value = 0.08;
  gain.connect(context.destination);
  [880, 1320].forEach((frequency, index) => {
    const tone = context.createOscillator();
    tone.frequency.value = frequency;
    tone.connect(gain);
    tone.start(context.currentTime + index * 0.15);
    tone.stop(context.currentTime + index * 0.15 + 0.12);
  });
  setTimeout(() => void context.close(), 600);
}

/** What the person opted into, for one new waiting chat. `document.hidden`: the notification is for a person looking elsewhere. */
export function alertNewChat(title: string, body: string): void {
  chime();
  if (typeof Notification !== 'undefined' && Notification.permission === 'granted' && document.hidden) new Notification(title, { body, tag: 'voxplan-conversation' });
}
