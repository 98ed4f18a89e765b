import { useLocalStorage } from '@mantine/hooks';
import { useSyncExternalStore } from 'react';

const SOUND_KEY = 'conversations-alerts';
const NOTIFICATIONS_ASKED_KEY = 'conversations-notifications-asked';

/**
 * The new-chat sound, on unless the person turned it off in this browser (issue 36: a new chat was
 * easy to miss with it off by default). It plays only while the agent is online.
 */
export function useChatSound(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useLocalStorage<boolean>({ key: SOUND_KEY, defaultValue: true, getInitialValueInEffect: false });
  return [on, setOn];
}

/**
 * Browsers let a page play sound only after the person has clicked or typed in it (Chrome's and
 * Firefox's autoplay rules): the one AudioContext is made and resumed on the first such gesture,
 * and the screen says the sound is blocked until then.
 */
let context: AudioContext | undefined;
let soundReady = false;
const readyListeners = new Set<() => void>();

function audioContextClass(): typeof AudioContext | undefined {
  return typeof window === 'undefined' ? undefined : (window.AudioContext as typeof AudioContext | undefined);
}

function unlockAudio(): void {
  const AudioContextClass = audioContextClass();
  if (!AudioContextClass || soundReady) return;
  context ??= new AudioContextClass();
  void context.resume().then(
    () => {
      soundReady = context?.state === 'running';
      if (soundReady) {
        for (const type of UNLOCKING_EVENTS) window.removeEventListener(type, unlockAudio, true);
      }
      for (const listener of readyListeners) listener();
    },
    () => undefined,
  );
}

/**
 * A click rather than its pointerdown: the notice that the sound is blocked goes once the sound is
 * allowed, and the page moving between the press and the release would send the click elsewhere.
 */
const UNLOCKING_EVENTS = ['click', 'keydown'] as const;
if (audioContextClass()) for (const type of UNLOCKING_EVENTS) window.addEventListener(type, unlockAudio, true);

/** True while the browser still holds the sound back (no click or key in the page yet); false where there is no audio at all. */
export function useSoundBlocked(): boolean {
  return useSyncExternalStore(
    (listener) => {
      readyListeners.add(listener);
      return () => void readyListeners.delete(listener);
    },
    () => audioContextClass() !== undefined && !soundReady,
  );
}

/** A short two-tone chime made on the spot, so no audio file travels with the console. */
export function chime(): void {
  if (!context || !soundReady) return;
  const gain = context.createGain();
  gain.gain.value = 0.08;
  gain.connect(context.destination);
  [880, 1320].forEach((frequency, index) => {
    const tone = context!.createOscillator();
    tone.frequency.value = frequency;
    tone.connect(gain);
    tone.start(context!.currentTime + index * 0.15);
    tone.stop(context!.currentTime + index * 0.15 + 0.12);
  });
}

/**
 * The browser's notifications for a new chat while the tab is hidden: offered (not asked for) on
 * the screen, asked once on the person's click, and the answer remembered (by the browser; the
 * offer by this console, so that a dismissed prompt is not offered again).
 */
export function useNotificationOffer(): { offered: boolean; ask(): Promise<void> } {
  const [asked, setAsked] = useLocalStorage<boolean>({ key: NOTIFICATIONS_ASKED_KEY, defaultValue: false, getInitialValueInEffect: false });
  const supported = typeof Notification !== 'undefined';
  const offered = supported && !asked && Notification.permission === 'default';
  const ask = async () => {
    setAsked(true);
    if (supported) await Notification.requestPermission().catch(() => undefined);
  };
  return { offered, ask };
}

/** A notification for a person looking elsewhere: only while the tab is hidden, and only if they allowed it. */
export function notifyIfHidden(title: string, body: string): void {
  if (typeof Notification !== 'undefined' && Notification.permission === 'granted' && document.hidden) new Notification(title, { body, tag: 'voxplan-conversation' });
}
