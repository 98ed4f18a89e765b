/**
 * Ports kept in memory, for tests and the in-process benchmark: the engine runs without a
 * network or a database, and every request a block made can be looked at afterwards. Lua is the
 * exception: `fx` scripts run in the real sandbox (`LuaScriptRunner`), never a canned answer.
 */
import {
  type AiPort,
  type AnalyseRequest,
  type AnalysisResults,
  type AudioInfo,
  type ChatbotOutcome,
  type ChatbotRequest,
  type DestinationInfo,
  type ExtractRequest,
  type OutboundRequest,
  type OutboundResponse,
  type OutgoingMessage,
  type ScheduleStatus,
  type ScriptRequest,
  type ScriptResult,
  type ScriptRunner,
  type TemplateRequest,
  type TemplateResult,
  type AiFailureCode,
  OutboundError,
  type OutboundFailure,
  unconfiguredAi,
} from '../ports.ts';
import { LuaScriptRunner } from '../lua/index.ts';
import type { CompiledPlan, EnginePorts } from '../runtime.ts';

/** An answer the fake HTTP port gives to requests whose URL starts with `url` (and whose method matches). */
export interface HttpStub {
  url: string;
  method?: string;
  status?: number;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  failure?: OutboundFailure;
}

export type AiStub<T> = T | { fail: AiFailureCode };

export interface MemoryWorld {
  plans?: CompiledPlan[];
  destinations?: DestinationInfo[];
  audios?: AudioInfo[];
  /** Status per date range id; a range not listed does not exist. */
  schedules?: Record<string, ScheduleStatus>;
  http?: HttpStub[];
  messaging?: 'ok' | 'fail';
  /**
   * The tenant's synced WhatsApp templates: `text` with `{{1}}`… for the body's parameters;
   * `refuse` makes Meta refuse it with that reason. Left out: no template exists.
   */
  templates?: Array<{ name: string; language: string; text: string; buttons?: string[]; refuse?: string }>;
  /** Left out: the host has no customer window (every session's is open). */
  customerWindow?: 'open' | 'closed';
  /** Left out: the AI port of a host with no key (`ai_key_not_found`). */
  ai?: {
    extract?: AiStub<{ values: Record<string, string> }>;
    /** One answer per turn, in order; the last repeats. */
    chat?: Array<AiStub<{ reply: string; outcome: ChatbotOutcome }>>;
    analyse?: AiStub<{ results: AnalysisResults }>;
  };
  now?: Date;
  /**
   * The ports a host may answer from a cache (plans, destinations, audios, date ranges, HTTP, the
   * protocol) answer with promises, as a host's do on a miss; left out, they answer at once.
   */
  async?: boolean;
}

export interface MemoryLog {
  http: OutboundRequest[];
  messages: OutgoingMessage[];
  /** Templates sent (WhatsApp) and read as plain text (other channels). */
  templates: Array<TemplateRequest | Omit<TemplateRequest, 'to' | 'at'>>;
  /** Every Lua run: what the `fx` block asked, and what the runner answered. */
  scripts: Array<{ request: ScriptRequest; result: ScriptResult }>;
  extract: ExtractRequest[];
  chat: ChatbotRequest[];
  analyse: AnalyseRequest[];
}

function aiResult<T extends object>(stub: AiStub<T>) {
  return 'fail' in stub ? ({ ok: false, code: stub.fail } as const) : ({ ok: true, ...stub } as const);
}

let sharedLua: LuaScriptRunner | undefined;
/**
 * For callers that bring no runner: one real runner per process, made on the first run. Its idle
 * workers do not keep the process alive, so it needs no closing; a test file that runs many
 * scripts should still pass its own, started in `beforeAll` and closed in `afterAll`.
 */
const defaultScripts: ScriptRunner = { run: (request) => (sharedLua ??= new LuaScriptRunner()).run(request) };

/** `scripts` runs the `fx` blocks' Lua: a `LuaScriptRunner` (the in-process benchmark passes its own). */
export function memoryPorts(world: MemoryWorld = {}, scripts: ScriptRunner = defaultScripts): EnginePorts & { log: MemoryLog; clockAt(date: Date): void } {
  const log: MemoryLog = { http: [], messages: [], templates: [], scripts: [], extract: [], chat: [], analyse: [] };
  const templateOf = (request: Omit<TemplateRequest, 'to' | 'at'>, isSending: boolean): Promise<TemplateResult> => {
    log.templates.push(request);
    const found = world.templates?.find((template) => template.name === request.template.name && template.language === request.template.language);
    if (!found) return Promise.resolve({ ok: false, reason: 'template_not_found' });
    if (isSending && found.refuse) return Promise.resolve({ ok: false, reason: found.refuse });
    const text = found.text.replace(/\{\{(\d+)\}\}/g, (placeholder, index: string) => request.values[`body.${index}`] ?? placeholder);
    return Promise.resolve({ ok: true, ...(isSending && { id: `wamid-${log.templates.length}` }), text, buttons: found.buttons ?? [] });
  };
  const plans = world.plans ?? [];
  const answer = <T>(value: T): T | Promise<T> => (world.async ? Promise.resolve(value) : value);
  const refuse = (error: Error): never | Promise<never> => {
    if (world.async) return Promise.reject(error);
    throw error;
  };
  let now = world.now ?? new Date('2026-11-22T12:00:00.000Z');
  const protocolCounters = new Map<number, number>();
  // The in-process bench calls these on most turns: the stub's JSON and the day's text are made once.
  const bodies = new WeakMap<HttpStub, string>();
  const bodyOf = (stub: HttpStub): string => {
    let body = bodies.get(stub);
    if (body === undefined) bodies.set(stub, (body = typeof stub.body === 'string' ? stub.body : stub.body === undefined ? '' : JSON.stringify(stub.body)));
    return body;
  };
  const logScript = (request: ScriptRequest, result: ScriptResult): ScriptResult => {
    log.scripts.push({ request, result });
    return result;
  };
  let protocolDay = { time: Number.NaN, text: '' };
  const dayOf = (at: Date): string => {
    if (at.getTime() !== protocolDay.time) protocolDay = { time: at.getTime(), text: at.toISOString().slice(0, 10).replaceAll('-', '') };
    return protocolDay.text;
  };
  let chatTurn = 0;

  const ai: AiPort = world.ai
    ? {
        extract(request) {
          log.extract.push(request);
          return world.ai?.extract ? Promise.resolve(aiResult(world.ai.extract)) : unconfiguredAi.extract(request);
        },
        chat(request) {
          log.chat.push(request);
          const answers = world.ai?.chat;
          if (!answers || answers.length === 0) return unconfiguredAi.chat(request);
          const answer = answers[Math.min(chatTurn++, answers.length - 1)]!;
          return Promise.resolve(aiResult(answer));
        },
        analyse(request) {
          log.analyse.push(request);
          return world.ai?.analyse ? Promise.resolve(aiResult(world.ai.analyse)) : unconfiguredAi.analyse(request);
        },
      }
    : {
        extract: (request) => (log.extract.push(request), unconfiguredAi.extract(request)),
        chat: (request) => (log.chat.push(request), unconfiguredAi.chat(request)),
        analyse: (request) => (log.analyse.push(request), unconfiguredAi.analyse(request)),
      };

  return {
    log,
    clockAt(date) {
      now = date;
    },
    // The ports a host may answer from a cache answer at once here, as a host's cache hit does
    // (ports.ts); `async: true` in the world makes them answer with promises, as on a miss.
    plans: {
      load: (tenantId, planId, version) => answer(plans.find((plan) => plan.tenant_id === tenantId && plan.id === planId && plan.version === version)),
      loadPublished: (tenantId, planId) =>
        answer(
          plans
            .filter((plan) => plan.tenant_id === tenantId && plan.id === planId)
            .reduce<CompiledPlan | undefined>((latest, plan) => (!latest || plan.version > latest.version ? plan : latest), undefined),
        ),
    },
    destinations: { find: (_tenantId, id) => answer(world.destinations?.find((destination) => destination.id === id)) },
    audios: { find: (_tenantId, id) => answer(world.audios?.find((audio) => audio.id === id)) },
    schedules: {
      statusAt: (_tenantId, id, _instant, options) => {
        const known = world.schedules !== undefined && Object.hasOwn(world.schedules, String(id));
        return answer(!known ? undefined : options?.holiday ? 'holiday' : world.schedules![String(id)]);
      },
    },
    http: {
      request(request): OutboundResponse | Promise<OutboundResponse> {
        log.http.push(request);
        const stub = world.http?.find((item) => request.url.startsWith(item.url) && (!item.method || item.method === request.method));
        if (!stub) return refuse(new OutboundError('network', `no stub for ${request.method} ${request.url}`));
        if (stub.failure) return refuse(new OutboundError(stub.failure, `stubbed ${stub.failure}`));
        return answer({ status: stub.status ?? 200, headers: { 'content-type': 'application/json' }, body: bodyOf(stub), url: request.url });
      },
    },
    scripts: {
      run(request) {
        const ran = scripts.run(request);
        return ran instanceof Promise ? ran.then((result) => logScript(request, result)) : logScript(request, ran);
      },
    },
    messaging: {
      send(message) {
        log.messages.push(message);
        if (message.channel === 'whatsapp' && world.customerWindow === 'closed') return Promise.resolve({ ok: false, reason: 'outside_customer_window' });
        return Promise.resolve(world.messaging === 'fail' ? { ok: false, reason: 'stubbed failure' } : { ok: true, id: `msg-${log.messages.length}` });
      },
    },
    templates: {
      send: (request) => templateOf(request, true),
      plainText: (request) => templateOf(request, false),
    },
    ...(world.customerWindow && { customerWindow: { isOpen: () => Promise.resolve(world.customerWindow === 'open') } }),
    ai,
    clock: { now: () => now },
    protocols: {
      next(tenantId, at) {
        const count = (protocolCounters.get(tenantId) ?? 0) + 1;
        protocolCounters.set(tenantId, count);
        return answer(`${dayOf(at)}-${String(count).padStart(6, '0')}`);
      },
    },
  };
}
