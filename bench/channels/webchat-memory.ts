/**
 * The chat bench's second figure (bench/channels/chat.ts): memory a live web chat conversation
 * holds, idle and with a long poll open, measured in the server child after a full GC.
 */
import http from 'node:http';
import { isMemoryResult, type MemoryResult } from '../api/protocol.ts';
import type { Dialect } from '../lib/dialects.ts';
import { checkedJson } from '../lib/http-json.ts';
import { fmt, table } from '../lib/load.ts';
import type { ServerChild } from '../lib/server-child.ts';

/** The target: memory a live web chat conversation. The ratio is reported against the Twilio bench's own (a figure to watch, not a target of the issue). */
export const TARGET = { bytesPerConversation: 20 * 1024 };

const kb = (bytes: number) => `${bytes >= 0 ? '+' : ''}${fmt(bytes / 1024, 1)}`;

/** Of the widget API's answer, what the bench needs (packages/contracts/src/webchat.ts). */
interface Conversation {
  conversation_id: string;
  revision: number;
}

/** `count` web chat conversations started and each sent a message, `concurrency` at a time; a failure stops the run. */
async function startConversations(server: ServerChild, key: string, origin: string, count: number, concurrency: number): Promise<Conversation[]> {
  const base = `${server.url}/api/v1/webchat/${key}/conversations`;
  const headers = { origin, 'content-type': 'application/json' };
  const made: Conversation[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const started = (await checkedJson(base, { method: 'POST', headers: { origin } }, 'start a web chat conversation')) as Conversation;
      const answered = (await checkedJson(
        `${base}/${encodeURIComponent(started.conversation_id)}/messages`,
        { method: 'POST', headers, body: JSON.stringify({ id: `m${index}`, text: '1' }) },
        'send a web chat message',
      )) as Conversation;
      made.push({ conversation_id: started.conversation_id, revision: answered.revision });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return made;
}

const memoryOf = async (server: ServerChild): Promise<MemoryResult> => {
  const result = await server.command({ cmd: 'memory' });
  if (!isMemoryResult(result)) throw new Error('the server child answered no memory figures');
  return result;
};

export interface MemoryFigures {
  dialect: Dialect;
  conversations: number;
  polls: number;
  seconds: number;
  before: MemoryResult;
  idle: MemoryResult;
  polling: MemoryResult | undefined;
}

/**
 * A warm-up of conversations first (code compiled, caches filled, pools opened), the baseline,
 * the conversations, the figure with them idle, then long polls open on `polls` of them (each
 * waiting 25 s, far longer than the reading takes) and the figure again.
 */
export async function measureMemory(
  server: ServerChild,
  key: string,
  dialect: Dialect,
  settings: { conversations: number; polls: number; origin: string },
  expectThat: (ok: boolean, what: string) => void,
): Promise<MemoryFigures> {
  const { origin } = settings;
  const concurrency = 16;
  process.stderr.write(`  web chat memory on ${dialect}: ${settings.conversations} conversations, then ${settings.polls} long polls\n`);
  await startConversations(server, key, origin, Math.min(500, settings.conversations), concurrency);
  const before = await memoryOf(server);
  const started = performance.now();
  const conversations = await startConversations(server, key, origin, settings.conversations, concurrency);
  const seconds = (performance.now() - started) / 1000;
  const idle = await memoryOf(server);
  if (settings.polls === 0) return { dialect, conversations: conversations.length, polls: 0, seconds, before, idle, polling: undefined };

  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const opened: Array<Promise<void>> = [];
  const requests: http.ClientRequest[] = [];
  let answeredEarly = 0;
  for (const conversation of conversations.slice(0, settings.polls)) {
    opened.push(
      new Promise((resolve) => {
        const request = http.get(
          `${server.url}/api/v1/webchat/${key}/conversations/${encodeURIComponent(conversation.conversation_id)}?after=${conversation.revision}&wait=25`,
          { agent, headers: { origin } },
          (response) => {
            // A poll must wait: an answer now means it did not (a new turn, an error), and it holds nothing.
            answeredEarly++;
            response.resume();
          },
        );
        request.on('socket', (socket) => socket.once('connect', () => resolve()));
        request.on('error', () => resolve());
        requests.push(request);
      }),
    );
  }
  await Promise.all(opened);
  // Connected is not yet read: give the server time to take every request into its handler.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const polling = await memoryOf(server);
  expectThat(answeredEarly === 0, `${answeredEarly} long polls answered at once instead of waiting`);
  for (const request of requests) request.destroy();
  agent.destroy();
  return { dialect, conversations: conversations.length, polls: settings.polls, seconds, before, idle, polling };
}

/** The memory figures as a table; `verdict` counts a target missed. */
export function memoryReport(figures: MemoryFigures[], verdict: (ok: boolean) => string): string {
  const lines = [['web chat memory', 'conversations', 'started/s', 'heap KB', 'RSS KB', 'heap B/conv', 'RSS B/conv', 'target']];
  for (const f of figures) {
    const rows: Array<[string, MemoryResult, number]> = [[`${f.dialect}, idle`, f.idle, f.conversations]];
    if (f.polling) rows.push([`${f.dialect}, ${f.polls} long polls open`, f.polling, f.conversations]);
    for (const [name, m, count] of rows) {
      const heap = (m.heapUsed - f.before.heapUsed) / count;
      const rss = (m.rss - f.before.rss) / count;
      lines.push([
        name,
        String(count),
        fmt(count / f.seconds, 0),
        kb(m.heapUsed - f.before.heapUsed),
        kb(m.rss - f.before.rss),
        fmt(heap, 0),
        fmt(rss, 0),
        `≤ 20 KB ${verdict(Math.max(heap, rss) <= TARGET.bytesPerConversation)}`,
      ]);
    }
    if (f.polling) {
      const perPoll = (f.polling.heapUsed - f.idle.heapUsed) / f.polls;
      lines.push([`${f.dialect}, each open poll`, String(f.polls), '', '', '', fmt(perPoll, 0), fmt((f.polling.rss - f.idle.rss) / f.polls, 0), '']);
    }
    if (!f.before.collected) lines.push([`${f.dialect}: no --expose-gc, figures before GC`, '', '', '', '', '', '', '']);
  }
  return table(lines);
}
