import type { Outcome, ScheduleStatus } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { dateRangeBlock } from './definition.ts';

export const dateRangeRuntime = defineRuntime(dateRangeBlock, {
  compile: (data) => data,
  // A promise only when the port answers with one: a host answers a range it keeps at once.
  enter(turn, node) {
    // A test run "as if" at another hour or on a holiday reads its own clock (Turn.schedule).
    const { instant, holiday } = turn.schedule;
    const status = turn.ports.schedules.statusAt(turn.session.tenant_id, node.config.date_range_id, instant, holiday ? { holiday } : undefined);
    const rangeId = node.config.date_range_id;
    return status instanceof Promise ? status.then((answered) => exitOf(rangeId, answered)) : exitOf(rangeId, status);
  },
});

function exitOf(rangeId: number, status: ScheduleStatus | undefined): Outcome {
  // No exit fits "the schedule is gone": guessing open or closed could route callers wrongly.
  if (status === undefined) return { fail: 'reference_not_found', message: `date range ${rangeId} does not exist in the tenant` };
  return { exit: status };
}
