/**
 * Starting a session (docs/sessions.md): the licence's admission, the plan version pinned, the
 * first turn run to its first wait and stored with the session in one write. A start repeated by
 * its channel, or stored first by another instance, answers the first turn stored.
 */
import { startSession } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import { uniqueViolationColumns } from '../../db/constraint-errors.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { liveEventsOf, publishLiveEvents } from './live-events.ts';
import { checkId, newSessionId, type RuntimeCore, storedStatus, type TurnFollowUps } from './runtime-core.ts';
import type { StartOptions, StartRequest, TurnOutcome } from './session-runtime.ts';
import { findEventOutcome, findSession, findStart, sessionColumns, type StoredOutcome, storeStart } from './sessions.repository.ts';
import { tenantLanguage } from './system-messages.ts';
import { contactKeyFor } from '../rollouts/contact-key.ts';

export function createStarts(core: RuntimeCore, followUps: Pick<TurnFollowUps, 'followHandOff'>): (request: StartRequest, options?: StartOptions) => Promise<TurnOutcome> {
  const { ctx, db, clock, plans, kept, writes, admit, sessionEnded, inTurn, portsFor, timeoutOf, webhookOf, outcomeOf, finishTurn, hooksNeedTransaction } = core;
  const { followHandOff } = followUps;

  /**
   * The stored first turn of a start whose id exists: a redelivery of the same start. An id is a
   * provider's (a call SID) and so chosen by whoever signs the request; one that belongs to another
   * tenant's or another provider's session is refused, never answered with that session's turn.
   */
  async function duplicateStart(id: string, init: Pick<StartRequest, 'tenant_id' | 'provider'>): Promise<TurnOutcome | undefined> {
    return storedStart(id, init, await findEventOutcome(db, id, 'start'));
  }

  /** `duplicateStart` of a first turn read already. */
  async function storedStart(id: string, init: Pick<StartRequest, 'tenant_id' | 'provider'>, stored: StoredOutcome | undefined): Promise<TurnOutcome | undefined> {
    if (!stored) return undefined;
    const row = await findSession(db, id);
    if (!row || row.tenant_id !== init.tenant_id || row.provider !== init.provider) throw conflict('session_id_taken');
    return { ...stored, session_id: id, duplicate: true, report: null };
  }

  /**
   * The version a start at a chosen block runs, once that block is found in it: pinned here, so
   * that a publish in between cannot run another version than the one checked. Undefined when the
   * plan cannot be loaded, which fails the session as on any start.
   */
  async function checkStartNode(tenantId: number, planId: number, pinned: { version: number; draft: boolean } | undefined, nodeId: string): Promise<number | undefined> {
    const plan =
      pinned === undefined
        ? await plans.published.loadPublished(tenantId, planId)
        : await (pinned.draft ? plans.withDraft(planId) : plans.published).load(tenantId, planId, pinned.version);
    if (plan && !plan.nodes.has(nodeId)) throw badRequest('start_node_not_found', [{ path: 'start_node', message: `no block ${nodeId} in version ${plan.version}` }]);
    return plan?.version;
  }

  async function start(request: StartRequest, options: StartOptions = {}): Promise<TurnOutcome> {
    const id = checkId(request.id ?? newSessionId(), 'id');
    return inTurn(id, async () => {
      const { draft, version, is_test, start_node, customer, unanswered, ...init } = request;
      const isDraft = draft === true;
      const isTest = is_test ?? isDraft;
      const counted = !isTest && admit !== undefined;
      // PostgreSQL: the read cache's ping goes out beside the start's first read, once for the kept reads that follow (ReadCache.catchUp).
      const catchingUp = options.caughtUp ?? ctx.readCache.catchUp();
      const checked = await findStart(db, id, counted ? init : undefined);
      const existing = await storedStart(id, request, checked.stored);
      if (existing) {
        options.accepted?.();
        return existing;
      }
      if (counted) await admit(init, checked.running);
      // Real calls always begin at the start block: what they run is what the plan says.
      if (start_node !== undefined && !isTest) throw badRequest('invalid_input', [{ path: 'start_node', message: 'only test sessions begin at a chosen block' }]);
      // Nor do they run "as if" at another time: a caller's date range reads the real clock.
      if (init.schedule_clock !== undefined && !isTest) throw badRequest('invalid_input', [{ path: 'schedule_clock', message: 'only test sessions run as if at another time' }]);
      if (version !== undefined && (!isTest || isDraft)) throw badRequest('invalid_input', [{ path: 'version', message: 'only a test session of a published version names it' }]);
      if (version !== undefined && !(await plans.published.load(init.tenant_id, init.plan_id, version))) throw badRequest('plan_version_not_found', [{ path: 'version', message: `no published version ${version}` }]);
      const draftPlanId = isDraft ? init.plan_id : null;
      // A plan without a draft pins version 0, which does not exist: the session fails as plan_not_found.
      let planVersion = isDraft ? ((await plans.draftVersion(init.tenant_id, init.plan_id)) ?? 0) : version;
      if (start_node !== undefined)
        planVersion = (await checkStartNode(init.tenant_id, init.plan_id, planVersion === undefined ? undefined : { version: planVersion, draft: isDraft }, start_node)) ?? planVersion;
      options.accepted?.();
      const caughtUp = catchingUp && (await catchingUp);
      // What the plan speaks when it names no language; pinned in the session, like its plan version.
      const language = init.language ?? (await ctx.readCache.atOnce(caughtUp, () => tenantLanguage(ctx, init.tenant_id)));
      const result = await ctx.readCache.atOnce(caughtUp, () => startSession(
        { ...init, id, language, contact_key: contactKeyFor(init, id), ...(planVersion !== undefined && { plan_version: planVersion }) },
        portsFor(draftPlanId, options.observer),
        { ...(start_node !== undefined && { startNodeId: start_node }), ...(unanswered !== undefined && { unanswered }) },
      ));
      const session = result.session;
      const now = clock.now();
      const nowText = now.toISOString();
      const outcome = outcomeOf(null, result, 1);
      const timeoutTime = await ctx.readCache.atOnce(caughtUp, () => timeoutOf(session, draftPlanId, now));
      const webhook = await ctx.readCache.atOnce(caughtUp, () => webhookOf(session, draftPlanId));
      const columns = sessionColumns(session);
      // One literal, not a spread of the columns with these after it (sessionColumns says why).
      const stored = {
        id: columns.id,
        tenant_id: columns.tenant_id,
        plan_id: columns.plan_id,
        plan_version: columns.plan_version,
        channel: columns.channel,
        provider: columns.provider,
        direction: columns.direction,
        caller: columns.caller,
        called: columns.called,
        source_ip: columns.source_ip,
        is_draft: isDraft ? 1 : 0,
        status: storedStatus(session),
        state: JSON.stringify(session),
        revision: 1,
        is_test: isTest ? 1 : 0,
        last_activity_time: nowText,
        timeout_time: timeoutTime,
        created_time: nowText,
        updated_time: nowText,
        ended_time: session.ended_at,
        customer: customer ? JSON.stringify(customer) : null,
      };
      const finishing = { before: null, result, isTest, webhook, unprompted: false };
      // A start that writes its session and event alone is, on PostgreSQL, one statement: no transaction around it.
      const isAlone = ctx.dialect === 'postgres' && !(result.report && !result.ignored) && !hooksNeedTransaction({ is_test: isTest, webhook, session });
      try {
        const store = async (db: Kysely<Database>) => {
          await storeStart(db, ctx.dialect, stored, outcome);
          return finishTurn(db, finishing, outcome, id, nowText);
        };
        const committed = isAlone ? await writes.runStatement(store) : await writes.run(store);
        kept.keep(session, stored.revision, stored.updated_time, false);
        publishLiveEvents(ctx.bus, () => liveEventsOf(null, session, outcome, isTest));
        followHandOff(session, outcome, isTest);
        if (session.status === 'ended') sessionEnded?.(session);
        return committed;
      } catch (error) {
        // Another instance stored the same id first: its first turn is the answer.
        if (uniqueViolationColumns(error) === undefined) throw error;
        const stored = await duplicateStart(id, request);
        if (!stored) throw error;
        options.observer?.discarded();
        return stored;
      }
    });
  }

  return start;
}
