/**
 * The rollbacks the tab's one live stream brings (docs/rollouts.md, "In the console"): the
 * dashboard's whole feed carries them while it is shown, the notifications' own `only=rollouts`
 * stream on every other screen. Whichever reads them publishes here; the notifications listen.
 */
import type { RolloutAutoRollbackEvent } from '@voxplan/contracts';

type Listener = (event: RolloutAutoRollbackEvent) => void;

const listeners = new Set<Listener>();

export function publishRollback(event: RolloutAutoRollbackEvent): void {
  for (const listener of listeners) listener(event);
}

/** Listens until the answer is called. */
export function onRollback(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
