import { fromForeign, parseJsonPath, readJsonPath } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileHttpRequest, sendHttpRequest } from '../core/http-request.ts';
import { httpRequestBlock } from './definition.ts';

export const httpRequestRuntime = defineRuntime(httpRequestBlock, {
  compile: (data) => ({ request: compileHttpRequest(data), save: data.save.map((item) => ({ variable: item.variable, path: parseJsonPath(item.path) })) }),
  async enter(turn, node) {
    const outcome = await sendHttpRequest(turn, node.config.request);
    if (!outcome.ok || outcome.status < 200 || outcome.status > 299) return { exit: 'error' };
    for (const item of node.config.save) turn.setVariable(item.variable, fromForeign(readJsonPath(outcome.json, item.path)));
    return { exit: 'success' };
  },
});
