/** Spec section 9: the first field takes focus 50 ms after the form appears. */
export const FIRST_FIELD_FOCUS_MS = 50;

/**
 * Scrolls to the first field in error and focuses it, once Mantine has marked it (aria-invalid) on
 * its next render; unless the person has gone to another of the form's fields since the submit
 * (`focusedAtSubmit`: what had the focus then; by default, what has it now). Their next keys belong
 * where they went, not in the field in error: a submit answered late, by the server or after a
 * loaded machine's render, must not send them elsewhere.
 */
export function focusFirstInvalid(container: HTMLElement | null, focusedAtSubmit: Element | null = document.activeElement): void {
  setTimeout(() => {
    const focused = document.activeElement;
    if (focused !== focusedAtSubmit && focused !== null && container?.contains(focused) && focused.matches('input, textarea, select')) return;
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
