import type { Rollout } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanPublished } from '@voxplan/contracts/visual-plan';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rolloutBucket } from '../src/lib/rollout-choice.ts';
import {
  api,
  auditOf,
  call,
  closeRollouts,
  current,
  expectCode,
  frontDesk,
  guest,
  member,
  numbersFor,
  ok,
  planRow,
  publish,
  save,
  server,
  startRollouts,
  v2,
  v3,
  VOICE_NUMBER,
  webchatAnonymous,
  webchatAs,
  whatsappFrom,
} from './rollout-fixture.ts';

/**
 * Publishing to a staged rollout (issue 41, docs/rollouts.md): the refusals, the start and its
 * audit, the choice sticky across calls and channels (Twilio, WhatsApp, web chat, Asterisk,
 * outbound), pinned contacts, and a running rollout's share, pinned contacts and rule changed.
 */
beforeAll(startRollouts);
afterAll(closeRollouts);

describe('publishing to a rollout', () => {
  test('refused for a plan never published, with a share out of range, for a guest; nothing is stored', async () => {
    const fresh = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Never published' }), 201);
    const base = await save(fresh, 'one');
    expectCode(await publish(fresh, base, { share: 10 }), 409, 'rollout_needs_published');
    expectCode(await publish(frontDesk, v3, { share: 101 }), 400, 'invalid_input');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/publish`, { base_version: v3, rollout: { share: 10 } }, guest.token), 403, 'readonly_only');
    expect(await planRow(fresh)).toEqual({ published_version: null, rollout_version: null });
    expect(await planRow(frontDesk)).toEqual({ published_version: v2, rollout_version: null });
    expect(await server.ctx.db.selectFrom('visual_plan_versions').select('version').where('plan_id', 'in', [fresh.id, frontDesk.id]).execute()).toEqual([{ version: v2 }]);
    expect(await current(frontDesk)).toBeNull();
    // No rollout running: nothing to change, promote or roll back.
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 5 }), 404, 'rollout_not_found');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`), 404, 'rollout_not_found');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`), 404, 'rollout_not_found');
  });

  test('starts a rollout: the published version stays, the new one meets the share; a second one is refused', async () => {
    const published = await ok<VisualPlanPublished>(publish(frontDesk, v3, { share: 50, pinned: ['+55 11 91234-5678', 'vip-visitor'] }));
    expect(published).toMatchObject({ version: v3, rollout: { base_version: v2, candidate_version: v3, share: 50, pinned: ['+5511912345678', 'vip-visitor'], state: 'running', started_by_name: member.username } });
    expect(await planRow(frontDesk)).toEqual({ published_version: v2, rollout_version: v3 });
    expect(await current(frontDesk)).toEqual(published.rollout);
    expectCode(await publish(frontDesk, v3, { share: 20 }), 409, 'rollout_running');
    // A plain publish while it runs would change what the rest meet: promote or roll back first.
    expectCode(await publish(frontDesk, v3), 409, 'rollout_running');

    const [created] = await auditOf('plan_rollout', published.rollout!.id);
    expect(created).toMatchObject({ action: 'create', username: member.username, after: { plan_name: 'Front desk', base_version: v2, candidate_version: v3, share: 50 } });
  });

  test('sticky across calls and channels: the same number on Twilio and WhatsApp, a web chat visitor', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 3);
    for (const number of candidate) {
      const calls = [await call(number), await call(number)];
      expect(calls.map((one) => one.version)).toEqual([v3, v3]);
      expect(calls[0]!.twiml).toContain('Version three. Press 1.');
      // Meta writes the number without "+".
      expect(await whatsappFrom(number.slice(1))).toBe(v3);
    }
    for (const number of base) {
      expect([(await call(number)).version, (await call(number)).version, await whatsappFrom(number.slice(1))]).toEqual([v2, v2, v2]);
    }
    // The site's signed-in user: the same visitor meets the same version on every conversation.
    const visitors = Array.from({ length: 6 }, (_, i) => `shopper-${i}`);
    for (const visitor of visitors) {
      const expected = rolloutBucket(frontDesk.id, visitor) < 5000 ? v3 : v2;
      expect([await webchatAs(visitor), await webchatAs(visitor)]).toEqual([expected, expected]);
    }
    // An anonymous visitor: the id the widget keeps in the browser (visitor_id) decides, conversation after conversation.
    for (let i = 0; i < 6; i++) {
      const visitorId = `browser-${i}-0123456789`;
      const expected = rolloutBucket(frontDesk.id, `visitor:${visitorId}`) < 5000 ? v3 : v2;
      expect([await webchatAnonymous(visitorId), await webchatAnonymous(visitorId)]).toEqual([expected, expected]);
    }
    // Pinned: a visitor id and a number typed with spaces.
    expect(await webchatAs('vip-visitor')).toBe(v3);
    expect((await call('+5511912345678')).version).toBe(v3);
  });

  test('an Asterisk caller, an outbound call and a campaign contact: the number on the other end decides', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 4);
    const start = async (init: { provider: 'asterisk' | 'twilio'; direction: 'inbound' | 'outbound'; caller: string; called: string }) => {
      const outcome = await server.ctx.sessions.start({ tenant_id: member.tenantId, plan_id: frontDesk.id, channel: 'voice', ...init });
      return (await server.ctx.sessions.find(outcome.session_id))!.session.plan_version;
    };
    // As the FastAGI server starts a call: the caller id, here without its "+".
    expect(await start({ provider: 'asterisk', direction: 'inbound', caller: candidate[3]!.slice(1), called: VOICE_NUMBER })).toBe(v3);
    expect(await start({ provider: 'asterisk', direction: 'inbound', caller: base[3]!, called: VOICE_NUMBER })).toBe(v2);
    // As the outbound core starts an answered call (one call or a campaign's): our number calls theirs.
    expect(await start({ provider: 'twilio', direction: 'outbound', caller: VOICE_NUMBER, called: candidate[3]! })).toBe(v3);
    expect(await start({ provider: 'asterisk', direction: 'outbound', caller: VOICE_NUMBER, called: base[3]! })).toBe(v2);
  });

  test('an outbound call nobody answered is reported on the version its number would have met', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 5);
    for (const [to, version] of [
      [candidate[4]!, v3],
      [base[4]!, v2],
    ] as const) {
      const placed = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: VOICE_NUMBER, to, variables: {}, machine_detection: false });
      await server.ctx.outboundCalls.dialResult(placed.session_id, { dial_status: 'no_answer' });
      const report = await server.ctx.db.selectFrom('call_reports').select(['plan_version', 'disposition']).where('session_id', '=', placed.session_id).executeTakeFirstOrThrow();
      expect(report).toEqual({ plan_version: version, disposition: 'missed' });
    }
  });

  test('share 0: the pinned numbers only; the share and the pinned contacts change in one audited call', async () => {
    const before = (await current(frontDesk))!;
    // Numbers in the share that have not written on WhatsApp yet (a chat still open takes the next message).
    const [inShare, pinned] = numbersFor(frontDesk.id, 50, 5).candidate.slice(3) as [string, string];
    const changed = await ok<Rollout>(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 0, pinned: [pinned] }));
    expect(changed).toMatchObject({ id: before.id, share: 0, pinned: [pinned], state: 'running' });
    // The next call sees the change at once: it was in the share, and is no longer.
    expect((await call(inShare)).version).toBe(v2);
    expect(await whatsappFrom(inShare.slice(1))).toBe(v2);
    expect((await call(pinned)).version).toBe(v3);
    expect(await whatsappFrom(pinned.slice(1))).toBe(v3);
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: -1 }), 400, 'invalid_input');
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 10 }, guest.token), 403, 'readonly_only');
    expect((await current(frontDesk))!.share).toBe(0);

    const entries = await auditOf('plan_rollout', before.id);
    expect(entries.at(-1)).toMatchObject({ action: 'update', before: { plan_name: 'Front desk', share: 50 }, after: { plan_name: 'Front desk', share: 0, pinned: [pinned] } });
  });

  test('the automatic rollback rule changes on a running rollout, audited; a rule out of range is refused and changes nothing', async () => {
    const before = (await current(frontDesk))!;
    const changed = await ok<Rollout>(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { auto_rollback: { goal_worse: true, max_failure_rate: 20 } }));
    expect(changed).toMatchObject({ id: before.id, share: before.share, pinned: before.pinned, auto_rollback: { goal_worse: true, max_failure_rate: 20 } });
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { auto_rollback: { goal_worse: true, max_failure_rate: 101 } }), 400, 'invalid_input');
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { pinned: Array.from({ length: 101 }, (_, i) => `visitor-${i}`) }), 400, 'invalid_input');
    expect((await current(frontDesk))!).toMatchObject({ pinned: before.pinned, auto_rollback: { goal_worse: true, max_failure_rate: 20 } });
    const entries = await auditOf('plan_rollout', before.id);
    expect(entries.at(-1)).toMatchObject({ action: 'update', before: { plan_name: 'Front desk', auto_rollback: before.auto_rollback }, after: { auto_rollback: { goal_worse: true, max_failure_rate: 20 } } });
    // Taken away again: no rule.
    expect((await ok<Rollout>(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { auto_rollback: null }))).auto_rollback).toBeNull();
  });
});
