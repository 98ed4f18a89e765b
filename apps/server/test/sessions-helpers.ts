/**
 * What the session and report tests share: plans from fixtures/plans stored as the plans API will
 * store them, a clock the tests move, a recorder of the session hooks, report rows made by the
 * real report writer, and a second server instance in its own process.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { planReferences, type ReferenceKind, type ValidatedDocument } from '@voxplan/blocks/definitions';
import { buildReport, type Clock, createSession, type EngineEvent, type Session } from '@voxplan/engine';
import type { Config } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import type { SessionEvents, SessionHookContext } from '../src/modules/sessions/session-events.ts';
import { saveReport, type StoredReport } from '../src/modules/sessions/call-reports.repository.ts';
import type { StartRequest, TurnOutcome } from '../src/modules/sessions/sessions.service.ts';

const fixturesDir = path.resolve(import.meta.dirname, '../../../fixtures/plans');

export type FixtureDocument = Record<string, unknown> & { nodes: Array<{ id: string; type: string; data: Record<string, unknown> }> };

export function readFixture(name: string): FixtureDocument {
  return JSON.parse(fs.readFileSync(path.join(fixturesDir, `${name}.json`), 'utf8')) as FixtureDocument;
}

/** A plan document's block and link, for plans a test writes inline. */
export const planNode = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
export const planEdge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

/** A chat plan that keeps a variable, greets, hands the chat to a destination; each exit says which it was. */
export function handOffPlan(destinationId: number, options: { timeoutS: number; onAnswer: string }) {
  const say = (id: string, text: string) => planNode(id, 'play_message', { voice_text: text, chat_text: text });
  return {
    settings: { session_timeout_min: 10, chat_text: 'Closing this idle chat.', sync_with_voice_text: false, webhook: '' },
    nodes: [
      planNode('start', 'start'),
      planNode('topic', 'variable', { assignments: [{ name: 'topic', value: 'billing' }] }),
      say('hello', 'Hello! Passing you to a person.'),
      planNode('agent', 'destination', { destination_id: destinationId, timeout_s: options.timeoutS }),
      say('on_answer', options.onAnswer),
      say('on_busy', 'Everyone is busy.'),
      say('on_no_answer', 'Nobody answered.'),
      say('on_failed', 'The hand-off failed.'),
    ],
    edges: [
      planEdge('start', 'next', 'topic'),
      planEdge('topic', 'next', 'hello'),
      planEdge('hello', 'next', 'agent'),
      planEdge('agent', 'answer', 'on_answer'),
      planEdge('agent', 'busy', 'on_busy'),
      planEdge('agent', 'no_answer', 'on_no_answer'),
      planEdge('agent', 'failed', 'on_failed'),
    ],
  };
}

/** Fixture id → the id of the record made for the test, per kind. */
export type ReferenceMap = Partial<Record<ReferenceKind, Record<number, number>>>;

/**
 * Stores a plan document with its draft and one published version (the draft's version), as the
 * plans API does; the document's references to destinations, date ranges and plans are mapped
 * to the test's records. Answers the plan's id.
 */
export async function storePlan(
  ctx: AppContext,
  tenantId: number,
  document: FixtureDocument,
  options: { name?: string; references?: ReferenceMap; version?: number; draft?: FixtureDocument } = {},
): Promise<number> {
  const content = remap(document, options.references ?? {});
  const version = options.version ?? 1;
  const name = options.name ?? String(document.name);
  const now = new Date().toISOString();
  const draft = options.draft ? remap(options.draft, options.references ?? {}) : content;
  const plan = await ctx.db
    .insertInto('visual_plans')
    .values({
      tenant_id: tenantId,
      created_time: now,
      updated_time: now,
      name,
      description: '',
      document: JSON.stringify(draft),
      version: options.draft ? version + 1 : version,
      published_version: version,
      updated_by: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await ctx.db
    .insertInto('visual_plan_versions')
    .values({ tenant_id: tenantId, plan_id: plan.id, version, name, document: JSON.stringify(content), published_time: now, published_by: null })
    .execute();
  return plan.id;
}

function remap(document: FixtureDocument, references: ReferenceMap): FixtureDocument {
  const { id: _id, tenant_id: _tenant, name: _name, version: _version, ...content } = structuredClone(document);
  const copy = content as FixtureDocument;
  for (const reference of planReferences(copy as unknown as ValidatedDocument)) {
    const mapped = references[reference.kind]?.[reference.id];
    if (mapped === undefined) continue;
    const node = copy.nodes.find((candidate) => candidate.id === reference.node_id)!;
    node.data[reference.path] = mapped;
  }
  return copy;
}

/** A clock the test moves by hand. */
export function testClock(start: string): Clock & { set(iso: string): void; advance(minutes: number): void } {
  let now = new Date(start);
  return {
    now: () => now,
    set(iso) {
      now = new Date(iso);
    },
    advance(minutes) {
      now = new Date(now.getTime() + minutes * 60_000);
    },
  };
}

export interface HookCall {
  hook: 'started' | 'ended' | 'unprompted';
  event: SessionHookContext & { report?: StoredReport; actions?: unknown[] };
}

/** Session hooks that note what they were told; `failOn` makes one of them throw. */
export function recordingEvents(): SessionEvents & { calls: HookCall[]; failOn: HookCall['hook'] | null } {
  const recorder = {
    calls: [] as HookCall[],
    failOn: null as HookCall['hook'] | null,
    onStarted: async (event: SessionHookContext) => note('started', event),
    onEnded: async (event: SessionHookContext & { report: StoredReport }) => note('ended', event),
    onUnprompted: async (event: SessionHookContext & { actions: unknown[] }) => note('unprompted', event),
  };
  function note(hook: HookCall['hook'], event: HookCall['event']) {
    if (recorder.failOn === hook) throw new Error(`the ${hook} hook failed`);
    recorder.calls.push({ hook, event });
  }
  return recorder;
}

/**
 * A report row made by the turn runner's own report writer, from an ended session (for the
 * report and isolation tests, which need reports without running calls).
 */
export async function insertReport(
  ctx: AppContext,
  tenantId: number,
  options: { sessionId: string; isTest?: boolean; startedAt?: string; session?: Partial<Session> },
): Promise<StoredReport> {
  const startedAt = new Date(options.startedAt ?? '2026-11-23T12:00:00.000Z');
  const session: Session = {
    ...createSession(
      { id: options.sessionId, tenant_id: tenantId, plan_id: 7, channel: 'voice', provider: 'twilio', caller: '+5511999990000', called: '+551130000000', source_ip: '198.51.100.7' },
      { version: 1, name: 'Seeded plan' },
      startedAt,
    ),
    status: 'ended',
    ended_at: new Date(startedAt.getTime() + 65_000).toISOString(),
    hangup_cause: 'normal_clearing',
    disposition: 'retained',
    path: [{ plan_id: 7, node_id: 'start', type: 'start', at: startedAt.toISOString(), exit: null }],
    ...options.session,
  };
  return saveReport(ctx.db, buildReport(session), options.isTest ?? false, new Date().toISOString());
}

/** Another server instance on the same database, in its own process, driven over IPC. */
export interface Instance {
  start(request: StartRequest): Promise<TurnOutcome>;
  handleTurn(sessionId: string, eventId: string, event: EngineEvent): Promise<TurnOutcome>;
  sweepTimeouts(): Promise<string[]>;
  expireStale(inactiveSince: string): Promise<string[]>;
  setClock(iso: string): Promise<void>;
  close(): Promise<void>;
}

export async function startInstance(config: Config, clock: string): Promise<Instance> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'session-instance.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, INSTANCE_CONFIG: JSON.stringify(config), INSTANCE_CLOCK: clock },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let serial = 0;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.result);
  });
  child.on('exit', () => {
    for (const waiting of pending.values()) waiting.reject(new Error('the instance exited'));
    pending.clear();
  });
  const call = <T>(op: string, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++serial;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, op, args });
    });
  await call('ready');
  return {
    start: (request) => call('start', request),
    handleTurn: (sessionId, eventId, event) => call('handleTurn', sessionId, eventId, event),
    sweepTimeouts: () => call('sweepTimeouts'),
    expireStale: (inactiveSince) => call('expireStale', inactiveSince),
    setClock: (iso) => call('setClock', iso),
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await call('close').catch(() => undefined);
      await exited;
    },
  };
}

/** A visual plan's document (PUT /visual-plans/:id/document) that says `words`, then waits in a menu until 1 is pressed. */
export const sayingPlan = (words: string) => ({
  nodes: [
    { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
    { id: 'hello', type: 'play_message', position: { x: 0, y: 100 }, data: { voice_text: words } },
    { id: 'ask', type: 'voice_menu', position: { x: 0, y: 200 }, data: { voice_text: 'Press 1 to leave.', options: [{ digits: '1', label: 'Leave' }] } },
    { id: 'bye', type: 'hangup', position: { x: 0, y: 300 }, data: {} },
  ],
  edges: [
    { id: 'e1', source: 'start', source_exit: 'next', target: 'hello' },
    { id: 'e2', source: 'hello', source_exit: 'next', target: 'ask' },
    { id: 'e3', source: 'ask', source_exit: '1', target: 'bye' },
  ],
});
