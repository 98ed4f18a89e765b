/**
 * The server's AI port (engine ports.ts, AiPort): the chatbot's turns, speech detection's
 * variables and a recording's analyses, through the tenant's AI provider (docs/ai.md).
 */
import type {
  AiFailureCode,
  AiPort,
  AiResult,
  AnalyseRequest,
  AnalysisResults,
  ChatbotOutcome,
  ChatbotRequest,
  ExtractRequest,
  RecordingAnalysis,
} from '@voxplan/engine/ports';
import type { Provider } from '@voxplan/engine';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AiConfig } from '../../config.ts';
import { OutboundError } from '@voxplan/engine/ports';
import type { AppContext } from '../../context.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { tenantIntegrations } from '../tenants/integrations.routes.ts';
import { anonymizeStructured } from './anonymize.ts';
import { createCostGuard } from './cost-guard.ts';
import { type AiProviderName, createAiProviders, failureOf } from './providers.ts';
import { recordingUrlCheck, type RecordingHostsConfig } from './recording-hosts.ts';
import { type AudioFile, audioFile, MAX_AUDIO_BYTES, transcribeWith } from './transcribe.ts';

type AiContext = Pick<AppContext, 'db' | 'keys' | 'readCache' | 'outbound'> & { config: RecordingHostsConfig & { ai: AiConfig } };

export interface AiPortOptions {
  log?: (message: string) => void;
  /** The cost guard's clock (ms since 1970): its minutes are the clock's. */
  now?: () => number;
  /** Where the requests, tokens, refusals and failed recording downloads are counted (GET /metrics). */
  metrics?: Pick<Metrics, 'aiRequests' | 'aiTokens' | 'aiRefused' | 'mediaFetchFailures'>;
}

const endTool = 'end_conversation';
const transferTool = 'transfer_to_human';
const messageParameter = {
  type: 'object',
  properties: { message: { type: 'string', description: 'What to say to the caller before this happens.' } },
  required: ['message'],
  additionalProperties: false,
} as const;
const chatbotTools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: endTool, description: 'End the conversation: the caller has what they needed, or said goodbye.', parameters: messageParameter, strict: true },
  },
  {
    type: 'function',
    function: {
      name: transferTool,
      description: 'Hand the caller to a human attendant: they asked for a person, or you cannot help them.',
      parameters: messageParameter,
      strict: true,
    },
  },
];

function chatbotSystemPrompt(request: ChatbotRequest): string {
  const medium =
    request.channel === 'voice' ?
      'You are speaking with a caller on the phone: your replies are read aloud, so keep them short and plain, with no lists, links or markup.'
    : 'You are chatting with a customer by text messages: keep replies short.';
  const rules = `Call ${endTool} when the conversation is over, and ${transferTool} when the customer asks for a person or you cannot help.`;
  return [medium, rules, request.instructions.trim()].filter((part) => part !== '').join('\n\n');
}

/** The model's own text, trimmed; an answer without one is empty. */
const textOf = (completion: ChatCompletion): string => completion.choices[0]?.message.content?.trim() ?? '';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The analyses as one JSON schema, so the model answers them all at once and in the shape the report keeps. */
function analysisSchema(analyses: readonly RecordingAnalysis[]) {
  const properties: Record<string, unknown> = {};
  for (const analysis of analyses) {
    if (analysis.kind === 'summary') {
      properties.summary = { type: 'string', description: `A summary of the conversation, at most ${analysis.max_length} characters.` };
    } else if (analysis.kind === 'sentiment') {
      properties.sentiment = { type: 'string', enum: analysis.items, description: "The customer's sentiment." };
    } else if (analysis.kind === 'questions') {
      properties.questions = {
        type: 'array',
        description: 'Each question answered from the conversation ("" when it does not say).',
        items: {
          type: 'object',
          properties: { question: { type: 'string', enum: analysis.items }, answer: { type: 'string' } },
          required: ['question', 'answer'],
          additionalProperties: false,
        },
      };
    } else {
      const what = analysis.kind === 'topics' ? 'The topics the conversation was about' : 'The keywords said in the conversation';
      properties[analysis.kind] = { type: 'array', items: { type: 'string', enum: analysis.items }, description: `${what}, of these.` };
    }
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** Keeps only what the schema allows: a model may still answer outside it (an OpenAI-compatible server without strict mode). */
function cleanResults(analyses: readonly RecordingAnalysis[], answer: Record<string, unknown>): AnalysisResults {
  const results: AnalysisResults = {};
  for (const analysis of analyses) {
    const value = answer[analysis.kind];
    if (analysis.kind === 'summary') {
      results.summary = typeof value === 'string' ? [...value.trim()].slice(0, analysis.max_length).join('') : '';
    } else if (analysis.kind === 'sentiment') {
      results.sentiment = typeof value === 'string' && analysis.items.includes(value) ? value : null;
    } else if (analysis.kind === 'questions') {
      const answers = Array.isArray(value) ? value.filter(isRecord) : [];
      results.questions = analysis.items.map((question) => {
        const found = answers.find((entry) => entry.question === question);
        return { question, answer: typeof found?.answer === 'string' ? found.answer : '' };
      });
    } else {
      const chosen = Array.isArray(value) ? value : [];
      results[analysis.kind] = analysis.items.filter((item) => chosen.includes(item));
    }
  }
  return results;
}

/** A variable may be named anything a plan allows; the schema's property names are those names. */
function variablesSchema(variables: ExtractRequest['variables']) {
  const properties = Object.fromEntries(variables.map((variable) => [variable.name, { type: ['string', 'null'], description: variable.description }]));
  return { type: 'object', properties, required: variables.map((variable) => variable.name), additionalProperties: false };
}

class AiFailure extends Error {
  constructor(
    readonly code: AiFailureCode,
    message: string,
  ) {
    super(message);
  }
}

export function createAiPort(ctx: AiContext, options: AiPortOptions = {}): AiPort {
  const providers = createAiProviders(ctx);
  const guard = createCostGuard(ctx.db, ctx.config.ai, options.now);
  const log = options.log ?? (() => {});
  const { metrics } = options;
  const { maxTokensPerTurn } = ctx.config.ai;

  /** One request to the provider, counted by its result. */
  async function counted<T>(operation: 'complete' | 'transcribe', request: () => Promise<T>): Promise<T> {
    try {
      const answer = await request();
      metrics?.aiRequests.inc({ operation, result: 'ok' });
      return answer;
    } catch (error) {
      metrics?.aiRequests.inc({ operation, result: failureOf(error).code });
      throw error;
    }
  }

  /**
   * Runs `work` with the tenant's client, each request it makes admitted by the cost guard first;
   * every failure becomes a catalogue code, logged with what the provider said.
   */
  async function withClient<T>(
    what: string,
    tenantId: number,
    sessionId: string,
    provider: AiProviderName,
    work: (request: Requests) => Promise<T>,
  ): Promise<AiResult<T>> {
    const choice = await providers.clientFor(tenantId, provider);
    if (!choice.ok) {
      log(`ai ${what} for tenant ${tenantId}: ${choice.code} (${choice.message})`);
      return { ok: false, code: choice.code };
    }
    const admit = async () => {
      if (await guard.admit(tenantId, sessionId)) return;
      metrics?.aiRefused.inc();
      throw new AiFailure('ai_limit_reached', 'the AI cost guard refused the call');
    };
    const requests: Requests = {
      async complete(body) {
        await admit();
        const completion = await counted('complete', () => choice.client.chat.completions.create({ max_completion_tokens: maxTokensPerTurn, ...body }));
        const tokens = completion.usage?.total_tokens ?? 0;
        metrics?.aiTokens.inc(tokens);
        await guard.spend(sessionId, tokens);
        return completion;
      },
      async transcribe(file) {
        await admit();
        return counted('transcribe', () => transcribeWith(choice.client, ctx.config.ai.transcriptionModel, file));
      },
    };
    try {
      return { ok: true, ...(await work(requests)) };
    } catch (error) {
      const failure = error instanceof AiFailure ? { code: error.code, message: error.message } : failureOf(error);
      log(`ai ${what} for tenant ${tenantId}: ${failure.code} (${failure.message})`);
      return { ok: false, code: failure.code, message: failure.message };
    }
  }

  /**
   * The recording's file, from the hosts of the provider that made it only (a tenant signs its own
   * recording callbacks, so the URL is the tenant's to choose), through the outbound client: the
   * address policy, redirects checked hop by hop, the size and the time bounded. Twilio's
   * recordings may need the account's credentials: they go to Twilio's hosts only.
   */
  async function downloadAudio(tenantId: number, source: { url: string; provider: Provider }) {
    const allowUrl = recordingUrlCheck(ctx.config, source.provider);
    const headers: Record<string, string> = {};
    if (source.provider === 'twilio') {
      const integrations = await tenantIntegrations(ctx, tenantId);
      if (integrations.twilio_sid && integrations.twilio_token) {
        headers.authorization = `Basic ${Buffer.from(`${integrations.twilio_sid}:${integrations.twilio_token}`).toString('base64')}`;
      }
    }
    let response;
    try {
      response = await ctx.outbound.requestBytes({ method: 'GET', url: source.url, headers, timeoutMs: ctx.config.ai.timeoutMs, maxBytes: MAX_AUDIO_BYTES, allowUrl });
    } catch (error) {
      metrics?.mediaFetchFailures.inc({ kind: 'recording' });
      if (error instanceof OutboundError) throw new AiFailure('ai_access_error', `the recording could not be fetched (${error.failure}): ${error.message}`);
      throw error;
    }
    if (response.status < 200 || response.status > 299) {
      metrics?.mediaFetchFailures.inc({ kind: 'recording' });
      throw new AiFailure('ai_access_error', `the recording answered ${response.status}`);
    }
    const type = response.headers['content-type'] ?? '';
    return audioFile(response.body, new URL(response.url).pathname.endsWith('.mp3') ? 'audio/mpeg' : type);
  }

  async function removeNames(requests: Requests, text: string): Promise<string> {
    const completion = await requests.complete({
      model: ctx.config.ai.chatModel,
      messages: [
        {
          role: 'system',
          content:
            "Rewrite the user's text with every person's name replaced by [name]. Change nothing else, and answer with the rewritten text only.",
        },
        { role: 'user', content: text },
      ],
      // The whole text comes back: the per-turn limit would cut it short.
      max_completion_tokens: Math.max(maxTokensPerTurn, Math.ceil(text.length / 2)),
    });
    return textOf(completion);
  }

  return {
    extract(request) {
      return withClient('extract', request.tenantId, request.sessionId, 'openai', async (requests) => {
        const instructions = [
          'Fill these variables from what the customer said. Use null for a value they did not give; do not guess.',
          `The customer speaks ${request.language}.`,
          request.prompt.trim() !== '' ? `Context: ${request.prompt.trim()}` : '',
        ];
        const completion = await requests.complete({
          model: ctx.config.ai.chatModel,
          messages: [
            { role: 'system', content: instructions.filter((line) => line !== '').join('\n') },
            { role: 'user', content: request.transcript },
          ],
          response_format: { type: 'json_schema', json_schema: { name: 'variables', strict: true, schema: variablesSchema(request.variables) } },
        });
        const answer = parseJson(textOf(completion));
        if (!isRecord(answer)) throw new AiFailure('ai_access_error', 'the model did not answer the variables as JSON');
        const values: Record<string, string> = {};
        for (const { name } of request.variables) {
          const value = answer[name];
          if (typeof value === 'string' && value.trim() !== '') values[name] = value.trim();
        }
        return { values };
      });
    },

    chat(request) {
      return withClient('chatbot', request.tenantId, request.sessionId, request.provider, async (requests) => {
        const completion = await requests.complete({
          // The block's assistant id names the model to talk with; empty, the configured one.
          model: request.assistantId.trim() || ctx.config.ai.chatModel,
          messages: [
            { role: 'system', content: chatbotSystemPrompt(request) },
            ...request.history.map((entry) => ({ role: entry.role, content: entry.text })),
            { role: 'user', content: request.input },
          ],
          tools: chatbotTools,
        });
        const message = completion.choices[0]?.message;
        const call = message?.tool_calls?.find((tool) => tool.type === 'function' && (tool.function.name === endTool || tool.function.name === transferTool));
        if (!call || call.type !== 'function') return { reply: textOf(completion), outcome: 'continue' as ChatbotOutcome };
        const args = parseJson(call.function.arguments);
        const said = isRecord(args) && typeof args.message === 'string' ? args.message.trim() : '';
        return { reply: said || textOf(completion), outcome: (call.function.name === endTool ? 'done' : 'transfer') as ChatbotOutcome };
      });
    },

    analyse(request: AnalyseRequest) {
      return withClient('analysis', request.tenantId, request.sessionId, 'openai', async (requests) => {
        let text = request.source.kind === 'transcript' ? request.source.text : await requests.transcribe(await downloadAudio(request.tenantId, request.source));
        if (request.anonymization) text = await removeNames(requests, anonymizeStructured(text));
        const completion = await requests.complete({
          model: ctx.config.ai.chatModel,
          messages: [
            { role: 'system', content: 'Analyse this conversation between a customer and a company, as the JSON schema asks. Answer in the language of the conversation.' },
            { role: 'user', content: text.trim() === '' ? '(nothing was said)' : text },
          ],
          response_format: { type: 'json_schema', json_schema: { name: 'analysis', strict: true, schema: analysisSchema(request.analyses) } },
        });
        const answer = parseJson(textOf(completion));
        if (!isRecord(answer)) throw new AiFailure('ai_access_error', 'the model did not answer the analyses as JSON');
        // What was analysed goes with the results (anonymised when asked): the report's detail shows it as the transcript.
        return { results: { ...cleanResults(request.analyses, answer), transcript: text } };
      });
    },
  };
}

interface Requests {
  complete(body: Omit<ChatCompletionCreateParamsNonStreaming, 'max_completion_tokens'> & { max_completion_tokens?: number }): Promise<ChatCompletion>;
  transcribe(file: AudioFile): Promise<string>;
}
