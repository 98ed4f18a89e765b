import { compareValues, fromForeign, parseJsonPath, readJsonPath } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileHttpRequest, sendHttpRequest } from '../core/http-request.ts';
import { apiSwitchBlock } from './definition.ts';

export const apiSwitchRuntime = defineRuntime(apiSwitchBlock, {
  compile: (data) => ({ request: compileHttpRequest(data), attribute: parseJsonPath(data.attribute), cases: data.cases, isAsync: data.async_call }),
  async enter(turn, node) {
    const { request, attribute, cases, isAsync } = node.config;
    if (isAsync) {
      // Fire and forget (blocks.md): the outcome is not awaited and cannot fail the session.
      try {
        void sendHttpRequest(turn, request);
      } catch {
        // As with an answer that failed: nothing of it reaches the session.
      }
      return { exit: 'default' };
    }
    const outcome = await sendHttpRequest(turn, request);
    if (!outcome.ok || outcome.status < 200 || outcome.status > 299) return { exit: 'error' };
    const value = fromForeign(readJsonPath(outcome.json, attribute));
    if (value === null) return { exit: 'default' };
    const match = cases.find((item) => compareValues(value, item.value) === 0);
    return { exit: match ? match.exit : 'default' };
  },
});
