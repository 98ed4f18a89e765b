import { EventSourceParserStream } from 'eventsource-parser/stream';
import { api } from '../../lib/api/client.ts';
import { watchedConnection } from './live-feed.ts';

/**
 * Reads one of the server's event streams (`path`) once, until it ends, fails or stays silent too
 * long (the server pings every 15 s), through the API client (its token, language and tenant:
 * EventSource cannot send the Authorization header). `onOpen` runs once the server has answered;
 * `onEvent` gets each event whose type is among `types`, its data parsed. Followed again and again
 * with `keepFollowing`.
 */
export async function readEventStreamOnce(path: string, types: readonly string[], onOpen: () => void, onEvent: (type: string, data: unknown) => void, stop: AbortSignal): Promise<void> {
  const { connection, heard, dispose } = watchedConnection(stop);
  try {
    const response = await api.stream(path, { signal: connection.signal });
    if (!response.body) throw new Error('no event stream');
    heard();
    onOpen();
    const messages = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream({ onComment: heard }))
      .getReader();
    connection.signal.addEventListener('abort', () => void messages.cancel().catch(() => undefined));
    for (;;) {
      const { value: message, done } = await messages.read();
      if (done) break;
      heard();
      if (!message.event || !types.includes(message.event)) continue;
      onEvent(message.event, JSON.parse(message.data));
    }
  } finally {
    dispose();
  }
}
