/**
 * A turn's marks in the session's path (Session.turn_path): which block made which of the turn's
 * actions, so that an event about an action (a prompt that failed, a hang-up partway) finds its
 * block; and the path's entries a turn takes its exits on, copied where the input session shares them.
 */
import { type PathEntry, PathEntryRecord, TurnPathRecord, newList } from './session.ts';
import { TurnBase } from './turn-base.ts';

export class TurnPath extends TurnBase {
  /** The last turn's marks, copied: they are the input session's, which a turn never changes. */
  protected keepLastTurnPath(): void {
    const marks = this.lastTurnPath;
    if (marks) this.session.turn_path = new TurnPathRecord(marks.start, marks.actions.slice());
  }

  /** This turn's marks in the path (Session.turn_path), begun on the turn's first block. */
  protected turnPath(): { start: number; actions: number[] } {
    if (!this.pathMarked) {
      this.pathMarked = true;
      this.session.turn_path = new TurnPathRecord(this.session.path.length - 1, newList());
    }
    return this.session.turn_path!;
  }

  /** The block of the last turn that made its `action`-th action. */
  protected blockOfAction(action: number): PathEntry | undefined {
    const marks = this.lastTurnPath;
    if (!marks) return undefined;
    let found: PathEntry | undefined;
    marks.actions.forEach((count, index) => {
      if (count <= action) found = this.session.path[marks.start + index];
    });
    return found;
  }

  /**
   * The caller hung up having started only `started` of the last turn's actions: the blocks of
   * that turn entered after them never ran for the caller, so the path ends at the block the
   * caller was in (which it left by no exit), and a recording whose block was not reached was
   * never made.
   */
  protected forgetUnreached(started: number): void {
    const session = this.session;
    const marks = this.lastTurnPath;
    if (!marks) return;
    const firstUnreached = marks.actions.findIndex((count) => count >= started && count > 0);
    if (firstUnreached === -1) return;
    const cut = marks.start + firstUnreached;
    if (cut <= 0 || cut >= session.path.length) return;
    const dropped = session.path.slice(cut);
    session.path = session.path.slice(0, cut);
    const last = session.path[cut - 1]!;
    session.path[cut - 1] = { ...last, exit: null };
    session.node_id = last.node_id;
    // A goal block the caller never reached was not reached.
    if (session.goal && session.goal.path_index >= cut) delete session.goal;
    // Nor was a plan whose first block the caller never reached entered, nor its goal reached.
    if (session.called_plans?.some((entered) => entered.path_index >= cut || (entered.goal?.path_index ?? -1) >= cut)) {
      const reached = session.called_plans
        .filter((entered) => entered.path_index < cut)
        .map(({ goal, ...entered }) => (goal && goal.path_index >= cut ? entered : { ...entered, ...(goal && { goal }) }));
      if (reached.length > 0) session.called_plans = reached;
      else delete session.called_plans;
    }
    const recording = session.recording;
    if (recording && dropped.some((entry) => entry.plan_id === recording.plan_id && entry.node_id === recording.node_id)) session.recording = null;
  }

  protected markExit(exit: string): void {
    const path = this.session.path;
    const last = path.at(-1);
    if (!last) return;
    if (path.length > this.firstOwnEntry) {
      // Made in this turn: no other session holds it, so it takes its exit in place.
      last.exit = exit;
      this.observer?.exited(last);
      return;
    }
    // Field by field rather than by a conditional spread (a temporary object and a generic copy of it).
    const entry = new PathEntryRecord(last.plan_id, last.node_id, last.type, last.at, exit);
    if (last.reason !== undefined) entry.reason = last.reason;
    path[path.length - 1] = entry;
    this.observer?.exited(entry);
  }
}
