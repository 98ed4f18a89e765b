/** Spec section 9: the first field takes focus 50 ms after the form appears. */
export const FIRST_FIELD_FOCUS_MS = 50;

/** Scrolls to the first field in error and focuses it, once Mantine has marked it (aria-invalid) on its next render. */
export function focusFirstInvalid(container: HTMLElement | null): void {
  setTimeout(() => {
    const invalid = container?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!invalid) return;
    invalid.scrollIntoView({ block: 'center', behavior: 'smooth' });
    invalid.focus({ preventScroll: true });
  }, 0);
}

/**
 * Spec section 9: focuses the form's first field FIRST_FIELD_FOCUS_MS after it appears, unless
 * someone is already in a field (taking the focus would send their next keys to another one).
 * Takes the ref, not the element: in a modal the form mounts after the effect that calls this.
 * Returns the cleanup for an effect.
 */
export function focusFirstField(formRef: { readonly current: HTMLFormElement | null }): () => void {
  const timer = setTimeout(() => {
    const form = formRef.current;
    if (form?.contains(document.activeElement)) return;
    form?.querySelector<HTMLElement>('input:not([type=hidden]):not([disabled]), textarea, select')?.focus();
  }, FIRST_FIELD_FOCUS_MS);
  return () => clearTimeout(timer);
}
