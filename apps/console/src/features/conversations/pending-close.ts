/**
 * A resolve by shortcut waits a few seconds before it reaches the server, and may be undone
 * meanwhile (issue 36, docs/conversations.md, "Undoing a resolve"). Waiting in the console rather
 * than reopening on the server: nothing has reached the customer or the plan yet (no closing
 * message, no end of the chat), so undoing is only not sending. The timers live here, not in a
 * screen, so that leaving the chat (or the screen) still resolves it; closing the tab within the
 * window leaves the chat open with its agent, the safe side.
 */
export const UNDO_RESOLVE_MS = 5000;

const pending = new Map<string, ReturnType<typeof setTimeout>>();

/** Runs `resolve` after the undo window unless `cancelResolve` comes first; a second call for the same chat is ignored. */
export function scheduleResolve(id: string, resolve: () => void, ms = UNDO_RESOLVE_MS): boolean {
  if (pending.has(id)) return false;
  pending.set(
    id,
    setTimeout(() => {
      pending.delete(id);
      resolve();
    }, ms),
  );
  return true;
}

/** Undoes a scheduled resolve; false when it already went. */
export function cancelResolve(id: string): boolean {
  const timer = pending.get(id);
  if (timer === undefined) return false;
  clearTimeout(timer);
  pending.delete(id);
  return true;
}

export const isResolvePending = (id: string): boolean => pending.has(id);
