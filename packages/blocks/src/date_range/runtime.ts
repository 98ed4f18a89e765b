import { defineRuntime } from '../core/define.ts';
import { dateRangeBlock } from './definition.ts';

export const dateRangeRuntime = defineRuntime(dateRangeBlock, {
  compile: (data) => data,
  async enter(turn, node) {
    // A test run "as if" at another hour or on a holiday reads its own clock (Turn.schedule).
    const { instant, holiday } = turn.schedule;
    const status = await turn.ports.schedules.statusAt(turn.session.tenant_id, node.config.date_range_id, instant, holiday ? { holiday } : undefined);
    // No exit fits "the schedule is gone": guessing open or closed could route callers wrongly.
    if (status === undefined) return { fail: 'reference_not_found', message: `date range ${node.config.date_range_id} does not exist in the tenant` };
    return { exit: status };
  },
});
