/** The widget's small helpers: building its elements, and what it reads of the page and the tag. */
import type { WebchatStart } from '@voxplan/contracts';

export type Child = Node | string;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** A random id: a message's, so that a retry of it runs nothing twice on the server; the visitor's, kept in the browser. */
export function randomId(): string {
  // randomUUID exists only in secure contexts (https, localhost); a plain-http page gets the fallback.
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An address anyone types in reads as name@host.tld; the server checks it in full. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The API takes a page's address up to this length (contracts' customerLimits.pageUrl). */
const PAGE_URL_MAX = 2000;

/**
 * The site's signed-in user, from the tag (docs/channels-webchat.md, "The site's signed-in user"):
 * `data-user-id` and `data-user-hash` (the site's HMAC of the id), with `data-user-name` and
 * `data-user-email`. The server trusts them only when the hash is right.
 */
export function identityOf(tag: HTMLScriptElement): WebchatStart['identity'] {
  const { userId: id, userHash: hash, userName: name, userEmail: email } = tag.dataset;
  return id && hash ? { id, hash, ...(name && { name }), ...(email && { email }) } : undefined;
}

/** The page the chat starts from, without its fragment (which never reaches a server); none on a page that is not http(s). */
export function pageUrl(): string | undefined {
  if (!/^https?:$/.test(location.protocol)) return undefined;
  const url = location.origin + location.pathname + location.search;
  return url.length <= PAGE_URL_MAX ? url : location.origin;
}
