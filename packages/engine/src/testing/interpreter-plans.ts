/**
 * The plan builder, session start and event player shared by the interpreter's tests
 * (interpreter.test.ts and interpreter-flows.test.ts), so each states only its plan and events.
 */
import { compilePlan } from '@voxplan/blocks/runtime';
import type { EngineEvent } from '../events.ts';
import { handleEvent, startSession, type TurnResult } from '../interpreter.ts';
import type { Session, SessionInit } from '../session.ts';
import { type MemoryWorld, memoryPorts } from './memory-ports.ts';

export type Edge = [string, string, string];

export function plan(nodes: Array<{ id: string; type: string; label?: string; data?: object }>, edges: Edge[], extra: object = {}) {
  return {
    id: 1,
    tenant_id: 1,
    name: 'Main line',
    version: 4,
    format_version: 1,
    nodes: nodes.map((node) => ({ position: { x: 0, y: 0 }, data: {}, ...node })),
    edges: edges.map(([source, source_exit, target], index) => ({ id: `e${index}`, source, source_exit, target })),
    ...extra,
  };
}

export const init: SessionInit = { id: 'CA123', tenant_id: 1, plan_id: 1, channel: 'voice', provider: 'twilio', caller: '+5511999990000', called: '+551130000000' };
export async function play(document: object, events: EngineEvent[], options: { init?: Partial<SessionInit>; world?: MemoryWorld; storeAsJson?: boolean } = {}) {
  const ports = memoryPorts({ ...options.world, plans: [compilePlan(document)] });
  const results: TurnResult[] = [await startSession({ ...init, ...options.init }, ports)];
  for (const event of events) {
    const stored = options.storeAsJson ? (JSON.parse(JSON.stringify(results.at(-1)!.session)) as Session) : results.at(-1)!.session;
    results.push(await handleEvent(stored, event, ports));
  }
  return { results, session: results.at(-1)!.session, ports };
}
export const menuPlan = plan(
  [
    { id: 'start', type: 'start' },
    { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1', label: 'Sales' }], max_retries: 0 } },
    { id: 'sales', type: 'destination', data: { destination_id: 1 } },
    { id: 'bye', type: 'play_message', data: { voice_text: 'Bye', chat_text: 'Bye!' } },
  ],
  [
    ['start', 'next', 'menu'],
    ['menu', '1', 'sales'],
    ['menu', 'invalid', 'menu'],
    ['menu', 'timeout', 'bye'],
  ],
  { settings: { chat_text: 'Are you still there? Closing this chat.' } },
);
export const world: MemoryWorld = { destinations: [{ id: 1, name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example' }] };
