import type { SessionInit } from '@voxplan/engine';

/**
 * Who a new session is with, for the rollout's sticky choice (docs/rollouts.md, "The contact key"):
 * a chat's caller is always its customer (WhatsApp's number, also on a chat the server opened); a
 * call's is the caller's number inbound and the called number outbound (a campaign's contact).
 * A channel that knows better passes its own (web chat: the visitor's id). A contact with no key
 * (a withheld number, an anonymous visitor) is chosen by the session's id: at the share, not sticky.
 */
export function contactKeyFor(init: Pick<SessionInit, 'channel' | 'direction' | 'caller' | 'called' | 'contact_key'>, sessionId: string): string {
  if (init.contact_key) return init.contact_key;
  const key = init.channel === 'voice' && init.direction === 'outbound' ? init.called : init.caller;
  return key.trim() === '' ? sessionId : key;
}
