/**
 * A local server playing OpenAI's API for the AI tests: chat completions (with tool calls and
 * structured output), audio transcriptions and speech, in the documented request and answer
 * shapes, and its errors. Each test says what the next answers are; what is not scripted gets a
 * 500. It also serves recordings, as Twilio's API would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string;
  /** JSON bodies parsed; others (multipart uploads) as text. */
  json: Record<string, unknown> | undefined;
  raw: Buffer;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Answer only after this long (a timeout test). */
  delayMs?: number;
}

/** What a scripted answer may be: fixed, or made from the request (a rewrite of its text). */
export type Script = Answer | ((request: SeenRequest) => Answer);

export interface FakeOpenAi {
  url: string;
  requests: SeenRequest[];
  /** Queues answers for requests whose path ends with `suffix`, taken in order. */
  script(suffix: string, ...answers: Script[]): void;
  /** Requests whose path ends with `suffix`. */
  seen(suffix: string): SeenRequest[];
  reset(): void;
  close(): Promise<void>;
}

const usage = (total: number) => ({ prompt_tokens: total - 5, completion_tokens: 5, total_tokens: total });

/** A chat completion whose message is `content`, as the API answers it. */
export function completion(content: string | null, options: { toolCall?: { name: string; arguments: Record<string, unknown> }; tokens?: number } = {}): Answer {
  const toolCalls = options.toolCall && [
    { id: 'call_1', type: 'function', function: { name: options.toolCall.name, arguments: JSON.stringify(options.toolCall.arguments) } },
  ];
  return {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_764_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...(toolCalls && { tool_calls: toolCalls }) }, finish_reason: toolCalls ? 'tool_calls' : 'stop', logprobs: null }],
      usage: usage(options.tokens ?? 20),
    },
  };
}

/** A structured-output answer: the JSON as the message's content. */
export const structured = (value: unknown, tokens?: number): Answer => completion(JSON.stringify(value), tokens === undefined ? {} : { tokens });

export const apiError = (status: number, message: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', param: null, code: status === 401 ? 'invalid_api_key' : null } },
});

/** A WAV of silence, as audio/speech answers with response_format wav. */
export function silentWav(ms: number, rate = 24_000): Buffer {
  const samples = Math.round((rate * ms) / 1000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: SeenRequest[] = [];
  const queues = new Map<string, Script[]>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      const seen: SeenRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '',
        authorization: request.headers.authorization,
        contentType,
        json: contentType.includes('application/json') ? (JSON.parse(raw.toString()) as Record<string, unknown>) : undefined,
        raw,
      };
      requests.push(seen);
      const suffix = [...queues.keys()].find((key) => seen.path.endsWith(key) && (queues.get(key)?.length ?? 0) > 0);
      const script = suffix === undefined ? undefined : queues.get(suffix)!.shift();
      const answer = script === undefined ? apiError(500, `nothing scripted for ${seen.path}`) : typeof script === 'function' ? script(seen) : script;
      const send = () => {
        if (response.destroyed) return;
        const body = answer.body;
        const isBytes = Buffer.isBuffer(body);
        response.writeHead(answer.status ?? 200, { 'content-type': isBytes ? 'audio/mpeg' : 'application/json', ...answer.headers });
        response.end(isBytes ? body : JSON.stringify(body ?? {}));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script(suffix, ...answers) {
      queues.set(suffix, [...(queues.get(suffix) ?? []), ...answers]);
    },
    seen: (suffix) => requests.filter((request) => request.path.endsWith(suffix)),
    reset() {
      requests.length = 0;
      queues.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
