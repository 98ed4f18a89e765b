/**
 * A screen with unsaved work (the plan editor) asks before the user leaves it: through a link, a
 * menu entry, the tenant picker or the browser's own reload or close. The console uses declarative
 * routes (no data router, so no `useBlocker`): links are intercepted here instead, before React
 * Router handles their click.
 */
import { useEffect, useRef } from 'react';

/** Why the user would leave: the tenant picker says so, since the guard may offer to save first. */
export type LeaveReason = 'navigate' | 'tenant';

/** Answers whether leaving may go on (the user saved, discarded, or there was nothing to lose). */
export type LeaveGuard = (reason: LeaveReason) => Promise<boolean>;

let current: { guard: LeaveGuard; hasUnsavedWork: () => boolean } | null = null;

/** Asks the screen on show, if any, whether the user may leave it. */
export async function mayLeave(reason: LeaveReason = 'navigate'): Promise<boolean> {
  return current ? current.guard(reason) : true;
}

/** Whether a same-window click on this anchor would leave for another route of the console. */
function isInAppLink(anchor: HTMLAnchorElement, event: MouseEvent): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if (anchor.target && anchor.target !== '_self') return false;
  if (anchor.hasAttribute('download')) return false;
  const url = new URL(anchor.href, window.location.href);
  return url.origin === window.location.origin && url.pathname + url.search !== window.location.pathname + window.location.search;
}

/**
 * While mounted, `guard` is asked before the user leaves through a console link (then the link is
 * followed with `follow`), the tenant picker or a `mayLeave` call, and the browser warns before a
 * reload or close while `hasUnsavedWork()`.
 */
export function useLeaveGuard(guard: LeaveGuard, hasUnsavedWork: () => boolean, follow: (path: string) => void): void {
  const latest = useRef({ guard, hasUnsavedWork, follow });
  latest.current = { guard, hasUnsavedWork, follow };

  useEffect(() => {
    const entry = { guard: (reason: LeaveReason) => latest.current.guard(reason), hasUnsavedWork: () => latest.current.hasUnsavedWork() };
    current = entry;

    const onClick = (event: MouseEvent) => {
      const anchor = (event.target as Element | null)?.closest?.('a[href]');
      if (!(anchor instanceof HTMLAnchorElement) || !isInAppLink(anchor, event) || !entry.hasUnsavedWork()) return;
      // Captured on the document, before React Router's own handler sees the click.
      event.preventDefault();
      event.stopPropagation();
      const url = new URL(anchor.href);
      void entry.guard('navigate').then((leave) => {
        if (leave) latest.current.follow(url.pathname + url.search + url.hash);
      });
    };
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!entry.hasUnsavedWork()) return;
      event.preventDefault();
      // Older browsers show their prompt only when a value is set.
      event.returnValue = '';
    };
    document.addEventListener('click', onClick, true);
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      if (current === entry) current = null;
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}
