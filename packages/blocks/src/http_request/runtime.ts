import { fromForeign, type JsonPath, type Outcome, parseJsonPath, readJsonPath, type Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileHttpRequest, type HttpOutcome, sendHttpRequest } from '../core/http-request.ts';
import { httpRequestBlock } from './definition.ts';

export const httpRequestRuntime = defineRuntime(httpRequestBlock, {
  compile: (data) => ({ request: compileHttpRequest(data), save: data.save.map((item) => ({ variable: item.variable, path: parseJsonPath(item.path) })) }),
  // A promise only when the HTTP port answers with one.
  enter(turn, node) {
    const sent = sendHttpRequest(turn, node.config.request);
    const { save } = node.config;
    return sent instanceof Promise ? sent.then((outcome) => exitOf(turn, save, outcome)) : exitOf(turn, save, sent);
  },
});

function exitOf(turn: Turn, save: ReadonlyArray<{ variable: string; path: JsonPath }>, outcome: HttpOutcome): Outcome {
  if (!outcome.ok || outcome.status < 200 || outcome.status > 299) return { exit: 'error' };
  for (const item of save) turn.setVariable(item.variable, fromForeign(readJsonPath(outcome.json, item.path)));
  return { exit: 'success' };
}
