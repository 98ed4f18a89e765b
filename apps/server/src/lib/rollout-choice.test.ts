import { describe, expect, test } from 'vitest';
import { contactKeyOf, meetsCandidate } from './rollout-choice.ts';

/** The rollout's choice (docs/rollouts.md, "The choice"): shares over many contacts, and one contact however a channel writes it. */
describe('the choice', () => {
  test('over 10,000 contacts, each share meets the new version within ±2 %', () => {
    const contacts = Array.from({ length: 10_000 }, (_, i) => contactKeyOf(`+5521${String(900000000 + i * 7919)}`));
    for (const share of [1, 10, 25, 50, 90]) {
      const met = contacts.filter((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share, pinned: [] })).length;
      expect(Math.abs(met / contacts.length - share / 100), `share ${share}: ${met}`).toBeLessThanOrEqual(0.02);
    }
    // Share 0: the pinned contacts only; share 100: everyone.
    const pinned = [contacts[3]!, contacts[7]!];
    expect(contacts.filter((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share: 0, pinned }))).toEqual(pinned);
    expect(contacts.every((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share: 100, pinned: [] }))).toBe(true);
  });

  test('a number is one contact however the channel writes it', () => {
    expect(['+55 11 91234-5678', '5511912345678', '+5511912345678', '005511912345678'].map(contactKeyOf)).toEqual(Array(4).fill('+5511912345678'));
    // A web chat visitor's id and a PBX extension are kept as they are.
    expect(['user-1842', '1001'].map(contactKeyOf)).toEqual(['user-1842', '1001']);
  });
});

