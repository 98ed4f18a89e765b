/**
 * Who a web chat's visitor is (docs/channels-webchat.md, "Who the visitor is"): what the pre-chat
 * form asked, the page's address, and the site's signed-in user. The last is trusted only when the
 * site signed the user's id with the number's identity key, as Chatwoot's identity validation does:
 * anyone can call the widget's API with any name, so an unsigned or wrongly signed identity is
 * refused (`403 webchat_identity_refused`) rather than shown to agents as if the site had vouched for it.
 */
import { createHmac } from 'node:crypto';
import type { ChatCustomer, WebchatPrechatField, WebchatStart } from '@voxplan/contracts';
import { AppError, badRequest } from '../../errors.ts';
import { safeEqualHex } from '../../lib/keys.ts';

/** The signature a site computes on its server for its user (the docs show it in Node, PHP and Python). */
export const identityHash = (secret: string, userId: string): string => createHmac('sha256', secret).update(userId, 'utf8').digest('hex');

/**
 * The customer a conversation starts with, or the refusal of what the widget sent: an identity
 * without the number's key or with a wrong signature, a page of another origin than the request's,
 * or a pre-chat field the number asks that is missing (the site's signed user counts as given).
 */
export function customerOf(start: WebchatStart, number: { prechat: readonly WebchatPrechatField[]; identitySecret: string | null }, origin: string): ChatCustomer | undefined {
  const { identity, customer, page_url: pageUrl } = start;
  if (identity) {
    // Compared in constant time: the time taken must not tell how much of a guessed signature was right.
    if (number.identitySecret === null || !safeEqualHex(identityHash(number.identitySecret, identity.id), identity.hash.toLowerCase())) {
      throw new AppError(403, 'webchat_identity_refused', [{ path: 'identity.hash', message: number.identitySecret === null ? 'this web chat has no identity key' : 'not the signature of this id' }]);
    }
  }
  if (pageUrl !== undefined && new URL(pageUrl).origin !== origin) throw badRequest('invalid_input', [{ path: 'page_url', message: 'not a page of the request’s origin' }]);
  const name = identity?.name ?? customer?.name ?? null;
  const email = identity?.email ?? customer?.email ?? null;
  const missing = number.prechat.filter((field) => (field === 'name' ? name : email) === null);
  if (missing.length > 0) throw badRequest('invalid_input', missing.map((field) => ({ path: `customer.${field}`, message: 'required' })));
  if (!identity && name === null && email === null && pageUrl === undefined) return undefined;
  return { name, email, page_url: pageUrl ?? null, external_id: identity?.id ?? null, verified: identity !== undefined };
}
