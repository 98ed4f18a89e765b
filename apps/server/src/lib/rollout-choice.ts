/**
 * The staged rollout's choice (docs/rollouts.md, "The choice"): which of a plan's two versions a
 * contact meets. Sticky without storing anything: a stable hash of the plan and the contact puts
 * every contact in one of 10,000 buckets, and the first `share` hundred buckets meet the new version.
 * The plan is in the hash so that one contact is not in the first buckets of every plan's rollout.
 */
import { toE164 } from './phone-numbers.ts';

/** FNV-1a, 32 bits, over the text's UTF-16 code units: stable across processes, versions and machines. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export const rolloutBuckets = 10_000;

/** The contact's bucket in the plan's rollouts, 0..9999. */
export function rolloutBucket(planId: number, contactKey: string): number {
  return fnv1a32(`${planId}:${contactKey}`) % rolloutBuckets;
}

const PHONE_LIKE = /^\+?[\d\s().-]+$/;

/**
 * One contact, one key, whichever channel it came by: Twilio's `From` is `+5511…`, WhatsApp's
 * `5511…` and a person typing a pinned number writes `+55 11 …`; a number that reads as an
 * international one is brought to E.164, anything else (a web chat visitor id, an extension) is
 * kept as it is.
 */
export function contactKeyOf(raw: string): string {
  const text = raw.trim();
  if (!PHONE_LIKE.test(text)) return text;
  const digits = text.replace(/\D/g, '');
  const international = text.startsWith('+') ? text : text.startsWith('00') ? text : `+${digits}`;
  return toE164(international) ?? text;
}

export interface RunningRollout {
  candidate_version: number;
  /** Percent, 0–100. */
  share: number;
  /** Contact keys as `contactKeyOf` gives them. */
  pinned: readonly string[];
}

/** Whether `contactKey` (already through `contactKeyOf`) meets the rollout's new version. */
export function meetsCandidate(planId: number, contactKey: string, rollout: RunningRollout): boolean {
  if (rollout.pinned.includes(contactKey)) return true;
  return rolloutBucket(planId, contactKey) < rollout.share * 100;
}
