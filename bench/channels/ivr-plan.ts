/**
 * The 20-block IVR bench:channels publishes, and the call it drives through it: the voice hook's
 * first request runs the start, the schedule, a greeting, variables and a condition up to the main
 * menu; then a key for sales, a key in the sales menu, the destination (Twilio dials, it is busy),
 * the survey's key, and a condition on the rating before the hangup: 18 of its 21 blocks on every
 * call (the other three are its other branches).
 */

import { BENCH_ADMIN } from '../api/protocol.ts';
import { apiCall } from '../lib/api-call.ts';
import type { ServerChild } from '../lib/server-child.ts';

interface Node {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}

const menuExits = ['timeout', 'invalid'] as const;

export function ivrPlan(refs: { destinationId: number; dateRangeId: number }) {
  const blocks: Array<[string, string, Record<string, unknown>]> = [
    ['start', 'start', { generate_protocol: true }],
    ['hours', 'date_range', { date_range_id: refs.dateRangeId }],
    ['welcome', 'play_message', { voice_text: 'Welcome to ACME. Your protocol is {{protocol}}.' }],
    ['set', 'variable', { assignments: [{ name: 'lang', value: 'en' }, { name: 'visits', value: '=coalesce(visits, 0) + 1' }] }],
    ['known', 'condition', { rules: [{ left: '{{caller}}', op: 'not_empty', right: '' }] }],
    ['greet', 'play_message', { voice_text: 'Hello, caller {{caller}}.' }],
    [
      'menu',
      'voice_menu',
      { voice_text: 'For sales press 1, support 2, billing 3.', options: [1, 2, 3].map((d) => ({ digits: String(d), label: `option ${d}` })), max_retries: 1 },
    ],
    ['returning', 'condition', { rules: [{ left: '=visits', op: 'gte', right: '=1' }] }],
    ['sales_menu', 'voice_menu', { voice_text: 'New customers press 1, existing customers 2.', options: [1, 2].map((d) => ({ digits: String(d), label: `team ${d}` })) }],
    ['team', 'variable', { assignments: [{ name: 'team', value: 'existing' }] }],
    ['queue', 'play_message', { voice_text: 'Connecting you to {{team}} sales.' }],
    ['sales', 'destination', { destination_id: refs.destinationId, timeout_s: 20 }],
    ['sorry', 'play_message', { voice_text: 'All our agents are busy.' }],
    ['survey', 'voice_menu', { voice_text: 'Rate us from 1 to 5.', options: [1, 2, 3, 4, 5].map((d) => ({ digits: String(d), label: String(d) })) }],
    ['rating', 'variable', { assignments: [{ name: 'rating', value: '{{last_digits}}' }] }],
    ['happy', 'condition', { rules: [{ left: '{{rating}}', op: 'gte', right: '4' }] }],
    ['thanks_good', 'play_message', { voice_text: 'Thank you, we are glad to help.' }],
    ['thanks', 'play_message', { voice_text: 'Thank you, we will do better.' }],
    ['support', 'play_message', { voice_text: 'Restart your router; it fixes most problems.' }],
    ['closed', 'play_message', { voice_text: 'We are closed. Goodbye.' }],
    ['bye', 'hangup', {}],
  ];
  const nodes: Node[] = blocks.map(([id, type, data], index) => ({ id, type, position: { x: (index % 4) * 320, y: Math.floor(index / 4) * 180 }, data }));
  const links: Array<[string, string, string]> = [
    ['start', 'next', 'hours'],
    ['hours', 'in_hours', 'welcome'],
    ['hours', 'out_of_hours', 'closed'],
    ['hours', 'holiday', 'closed'],
    ['welcome', 'next', 'set'],
    ['set', 'next', 'known'],
    ['known', 'true', 'greet'],
    ['known', 'false', 'menu'],
    ['greet', 'next', 'menu'],
    ['menu', '1', 'returning'],
    ['menu', '2', 'support'],
    ['menu', '3', 'support'],
    ...menuExits.map((exit): [string, string, string] => ['menu', exit, 'bye']),
    ['returning', 'true', 'sales_menu'],
    ['returning', 'false', 'sales_menu'],
    ['sales_menu', '1', 'team'],
    ['sales_menu', '2', 'team'],
    ...menuExits.map((exit): [string, string, string] => ['sales_menu', exit, 'bye']),
    ['team', 'next', 'queue'],
    ['queue', 'next', 'sales'],
    ['sales', 'busy', 'sorry'],
    ['sales', 'no_answer', 'sorry'],
    ['sales', 'failed', 'bye'],
    ['sorry', 'next', 'survey'],
    ...['1', '2', '3', '4', '5'].map((digit): [string, string, string] => ['survey', digit, 'rating']),
    ...menuExits.map((exit): [string, string, string] => ['survey', exit, 'bye']),
    ['rating', 'next', 'happy'],
    ['happy', 'true', 'thanks_good'],
    ['happy', 'false', 'thanks'],
    ['thanks_good', 'next', 'bye'],
    ['thanks', 'next', 'bye'],
    ['support', 'next', 'bye'],
    ['closed', 'next', 'bye'],
  ];
  const edges = links.map(([source, exit, target], index) => ({ id: `e${index + 1}`, source, source_exit: exit, target }));
  return { nodes, edges };
}

/** Blocks run by the call below, first request to hangup. */
export const BLOCKS_PER_CALL = 18;

/**
 * A tenant with a destination, an always-open schedule, the published IVR and the number that runs
 * it on `provider`; `prepareTenant` adds what the channel needs first (keys, access-control entries).
 */
export async function seedIvr(
  server: ServerChild,
  number: { e164: string; provider: 'twilio' | 'asterisk' },
  prepareTenant: (token: string, tenantId: number) => Promise<void>,
  /** The destination dialled (default a SIP URI; bench:channels:agi dials a busy Local channel of its real Asterisk). */
  destinationUri = 'sip:sales@pbx.example.com',
): Promise<void> {
  const token = String((await apiCall(server, 'POST', '/login', null, BENCH_ADMIN)).token);
  const tenantId = Number((await apiCall(server, 'POST', '/tenants', token, { name: 'bench' })).id);
  await prepareTenant(token, tenantId);
  const destinationId = Number((await apiCall(server, 'POST', '/destinations', token, { name: 'Sales', kind: 'voice', uri: destinationUri }, tenantId)).id);
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  const always = { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) };
  const dateRangeId = Number((await apiCall(server, 'POST', '/date-ranges', token, always, tenantId)).id);
  const planId = Number((await apiCall(server, 'POST', '/visual-plans', token, { name: 'Bench IVR' }, tenantId)).id);
  const saved = await apiCall(server, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: 1, settings: {}, ...ivrPlan({ destinationId, dateRangeId }) });
  await apiCall(server, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: saved.version });
  // BENCH_ROLLOUT=1: a second version rolled out to half the callers (issue 41), so that the
  // statements a call sends are counted with the version choice made; it must cost none.
  if (process.env.BENCH_ROLLOUT === '1') {
    const plan = ivrPlan({ destinationId, dateRangeId });
    const renamed = { ...plan, nodes: plan.nodes.map((node) => (node.id === 'start' ? { ...node, label: 'Start, rolled out' } : node)) };
    const next = await apiCall(server, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: saved.version, settings: {}, ...renamed });
    await apiCall(server, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: next.version, rollout: { share: 50 } });
  }
  await apiCall(server, 'POST', '/numbers', token, { number: number.e164, provider: number.provider, voice_plan_id: planId }, tenantId);
}
