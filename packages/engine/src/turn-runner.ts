/**
 * The turn loop and the block runner: an event applied to the session as it stands, then outcomes
 * followed from block to block until one waits or the session ends. Most blocks answer at once, so
 * a turn answers a promise only when a block waits on a port.
 */
import type { EngineEvent } from './events.ts';
import { engineLimits } from './limits.ts';
import { type Outcome, type RuntimeNode, blockReference } from './runtime.ts';
import { PathEntryRecord, currentFrame } from './session.ts';
import { TurnEnd, blockError } from './turn-end.ts';

const applied = (): true => true;

export class TurnState extends TurnEnd {
  /** `false` when the event does not apply to the session as it stands. */
  handle(event: EngineEvent): boolean | Promise<boolean> {
    const session = this.session;
    switch (event.type) {
      case 'start': {
        const start = this.plan.nodes.get(this.plan.startNodeId);
        if (!start) {
          this.fail('node_not_found', `start node ${this.plan.startNodeId} is missing`, this.plan.startNodeId);
          return true;
        }
        const first = this.startNodeId === undefined ? start : this.plan.nodes.get(this.startNodeId);
        if (!first) {
          this.fail('node_not_found', `block ${this.startNodeId} to start at is not in plan ${this.plan.id}`, this.startNodeId ?? null);
          return true;
        }
        if (first !== start) return this.startAt(start, first);
        const outcome = this.enter(first);
        const done = outcome instanceof Promise ? this.advanceAfter(first, outcome) : this.advance(first, this.afterBlock(first, outcome));
        return done instanceof Promise ? done.then(applied) : true;
      }
      case 'prompt_failed':
      case 'speech_unavailable': {
        // Between a turn's actions: the marks stay for the rest of that turn's actions.
        this.keepLastTurnPath();
        const node = this.blockOfAction(event.action);
        const code = event.type === 'prompt_failed' ? 'prompt_unplayable' : 'speech_engine_unavailable';
        session.failure ??= { code, message: event.message, plan_id: node?.plan_id ?? currentFrame(session).plan_id, node_id: node?.node_id ?? null };
        return true;
      }
      case 'answered_by':
        if (session.status === 'ended') return false;
        // Between turns: the marks of the last turn stay, as nothing of the plan ran.
        this.keepLastTurnPath();
        session.variables.answered_by = event.answered_by;
        return true;
      case 'hangup':
        if (event.actions_started !== undefined) this.forgetUnreached(event.actions_started);
        this.leaveWaitForPerson();
        this.finish('caller_hangup');
        return true;
      case 'expire':
        this.close('end_not_received', 'expired', event.at);
        return true;
      case 'undelivered':
        // Nobody was reached: the conversation never opened, as a call nobody answered.
        session.dial_status = 'failed';
        this.fail(event.code, event.message, session.node_id);
        return true;
      // Only once the call is over (handleEvent): a live session keeps recording.
      case 'recording_failed':
        return false;
      case 'recording_ready':
        if (!session.recording) return false;
        session.recording = { ...session.recording, url: event.url, duration_s: event.duration_s };
        return true;
      case 'timeout':
        if (session.channel === 'chat') {
          this.leaveWaitForPerson();
          this.finish('session_timeout');
          return true;
        }
        break;
      default:
        break;
    }
    const node = session.node_id === null ? undefined : this.plan.nodes.get(session.node_id);
    if (!node?.runtime.resume) return false;
    let outcome: Outcome | undefined;
    try {
      const resumed = node.runtime.resume(this, node, event);
      if (resumed instanceof Promise) return this.resumeAfter(node, resumed);
      outcome = resumed;
    } catch (error) {
      outcome = blockError(node, error);
    }
    if (outcome === undefined) return false;
    const done = this.advance(node, this.afterBlock(node, outcome));
    return done instanceof Promise ? done.then(applied) : true;
  }

  /**
   * A test run from a chosen block (StartOptions.startNodeId): the start block sets the session
   * up as on any start, out of the path, so that the run shows the chosen block first. Only its
   * way out is replaced; an end or a failure stands.
   */
  private async startAt(start: RuntimeNode, first: RuntimeNode): Promise<boolean> {
    const setUp = this.run(start);
    const outcome = setUp instanceof Promise ? await setUp : setUp;
    if (!('exit' in outcome)) {
      await this.advance(start, outcome);
      return true;
    }
    const entered = this.enter(first);
    await this.advance(first, this.afterBlock(first, entered instanceof Promise ? await entered : entered));
    return true;
  }

  private async resumeAfter(node: RuntimeNode, resumed: Promise<Outcome | undefined>): Promise<boolean> {
    let outcome: Outcome | undefined;
    try {
      outcome = await resumed;
    } catch (error) {
      outcome = blockError(node, error);
    }
    if (outcome === undefined) return false;
    await this.advance(node, this.afterBlock(node, outcome));
    return true;
  }

  /** The rest of the turn after a block that answered with a promise. */
  private async advanceAfter(node: RuntimeNode, entered: Promise<Outcome>): Promise<void> {
    await this.advance(node, this.afterBlock(node, await entered));
  }

  /**
   * Follows outcomes from block to block until one waits or the session ends; a promise only
   * when a block answered with one.
   */
  private advance(node: RuntimeNode, outcome: Outcome): Promise<void> | void {
    for (;;) {
      if ('wait' in outcome) {
        this.session.status = 'waiting';
        return;
      }
      if ('fail' in outcome) return this.fail(outcome.fail, outcome.message, node.id);
      if ('end' in outcome) return this.finish(outcome.end, outcome.reject === true);
      let next: RuntimeNode | undefined;
      if ('enterPlan' in outcome) {
        const plan = outcome.enterPlan;
        this.session.call_stack.push({ plan_id: plan.id, plan_version: plan.version, plan_name: plan.name });
        const called = this.session.called_plans;
        if (!called?.some((entered) => entered.plan_id === plan.id)) {
          // Replaced rather than pushed into: the list may be shared with the session the turn was given.
          this.session.called_plans = [...(called ?? []), { plan_id: plan.id, plan_version: plan.version, path_index: this.session.path.length }];
        }
        this.plan = plan;
        next = plan.nodes.get(plan.startNodeId);
        if (!next) return this.fail('node_not_found', `plan ${plan.id} has no start node`, null);
      } else {
        this.markExit(outcome.exit);
        const target = node.targets.get(outcome.exit);
        // An exit left unconnected ends the session the way `hangup` does (blocks.md).
        if (target === undefined) return this.finish('normal_clearing');
        next = this.plan.nodes.get(target);
        if (!next) return this.fail('node_not_found', `exit ${outcome.exit} leads to a missing node ${target}`, node.id);
      }
      node = next;
      const entered = this.enter(node);
      // Most blocks answer at once; awaiting only real promises spares a microtask per block.
      if (entered instanceof Promise) return this.advanceAfter(node, entered);
      outcome = this.afterBlock(node, entered);
    }
  }

  /**
   * A block whose reply was withheld outside the customer window leaves by its error exit, if it
   * has one, rather than going on (or waiting for an answer) as if the customer had read it; its
   * path entry already names the reason (docs/channels-whatsapp.md, "The 24-hour customer service window").
   */
  private afterBlock(node: RuntimeNode, outcome: Outcome): Outcome {
    if (!this.withheld) return outcome;
    this.withheld = false;
    if (node.errorExit === undefined || !('exit' in outcome || 'wait' in outcome)) return outcome;
    if ('wait' in outcome) this.session.node_state = null;
    return { exit: node.errorExit };
  }

  private enter(node: RuntimeNode): Outcome | Promise<Outcome> {
    const session = this.session;
    if (session.steps >= engineLimits.maxSteps) {
      return { fail: 'step_limit', message: `the session entered ${engineLimits.maxSteps} blocks; it is stopped to end a loop` };
    }
    const last = session.path.at(-1);
    const isSameNode = last !== undefined && last.node_id === node.id && last.plan_id === this.plan.id;
    session.same_node_streak = isSameNode ? session.same_node_streak + 1 : 1;
    if (session.same_node_streak >= engineLimits.maxSameNodeInARow) {
      return { fail: 'loop_limit', message: `${blockReference(node)} was entered ${engineLimits.maxSameNodeInARow} times in a row` };
    }
    session.steps++;
    session.node_id = node.id;
    session.node_state = null;
    const entry = new PathEntryRecord(this.plan.id, node.id, node.type, this.nowText, null);
    session.path.push(entry);
    if (node.goal !== undefined) this.reachGoal(node.goal);
    this.turnPath().actions.push(this.actions.length);
    this.observer?.entered(entry);
    return this.run(node);
  }

  /**
   * The session's first goal, and the first reached since entering each plan `call_plan` entered
   * (a called plan's rollout asks whether its sessions converted once there). Entries replaced,
   * never changed: they may be shared with the session the turn was given.
   */
  private reachGoal(name: string): void {
    const session = this.session;
    const goal = { name, path_index: session.path.length - 1 };
    if (session.goal === undefined) session.goal = goal;
    const called = session.called_plans;
    if (called?.some((entered) => entered.goal === undefined)) session.called_plans = called.map((entered) => (entered.goal ? entered : { ...entered, goal }));
  }

  /** The block's own work on arrival, its errors made the block's failure. */
  private run(node: RuntimeNode): Outcome | Promise<Outcome> {
    try {
      const outcome = node.runtime.enter(this, node);
      return outcome instanceof Promise ? outcome.catch((error: unknown) => blockError(node, error)) : outcome;
    } catch (error) {
      return blockError(node, error);
    }
  }
}
