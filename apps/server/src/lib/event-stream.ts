/**
 * A Server-Sent Events stream for a signed-in caller (the dashboard's live feed, the conversations'
 * events): pings so that proxies keep it, ends when the server closes, when the client goes away,
 * when it stops reading, and when the sign-in that opened it ends or its token expires (saying which
 * in a last comment), so that a stream never outlives the credentials it was opened with.
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignInEnd } from './access-tokens.ts';

/**
 * What a stream may hold unsent for a client that does not read: past it the stream ends, and the
 * client starts again from a new snapshot, instead of the server keeping its backlog.
 */
const MAX_UNSENT_BYTES = 1024 * 1024;

export const sseMessage = (event: { type: string }): string => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** The streams of one app, ended together when it closes (it would otherwise wait for them). */
export function eventStreams(app: FastifyInstance): Set<() => void> {
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of [...open]) end();
    done();
  });
  return open;
}

export interface EventStreamOptions {
  /** A `: ping` comment this often. */
  pingMs: number;
  /** Starts listening with `send`; answers the function that stops it. */
  subscribe(send: (text: string) => void): () => void;
  /** Called each ping, while the stream is open. */
  onPing?: () => void;
  /**
   * Called once when the stream ends, whatever ends it: `reason` is the sign-in's when that ended
   * it (`token_expired`: the client comes back with a fresh token), otherwise `closed` (the client
   * went away, or the server is closing).
   */
  onEnd?: (reason: SignInEnd | 'closed') => void;
}

export function sendEventStream(app: FastifyInstance, openStreams: Set<() => void>, request: FastifyRequest, reply: FastifyReply, options: EventStreamOptions): FastifyReply {
  const stream = new PassThrough();
  let isOpen = true;
  let unwatch = () => {};
  let unsubscribe = () => {};
  const end = (reason: SignInEnd | 'closed' = 'closed') => {
    if (!isOpen) return;
    isOpen = false;
    clearInterval(ping);
    unsubscribe();
    unwatch();
    openStreams.delete(end);
    stream.end();
    options.onEnd?.(reason);
  };
  const send = (text: string) => {
    if (!isOpen) return;
    if (stream.writableLength > MAX_UNSENT_BYTES) return end();
    stream.write(text);
  };
  unsubscribe = options.subscribe(send);
  const ping = setInterval(() => {
    send(': ping\n\n');
    options.onPing?.();
  }, options.pingMs);
  openStreams.add(end);
  // The client went away (or the connection broke): stop listening for it.
  reply.raw.on('close', end);
  stream.on('close', end);
  unwatch = app.watchSignIn(request, (reason) => {
    send(`: closed ${reason}\n\n`);
    end(reason);
  });
  // The first bytes send the headers, so the client knows at once the stream is open.
  send(': connected\n\n');
  return (
    reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache, no-transform')
      // Proxies that buffer answers (nginx) pass this one on as it comes.
      .header('x-accel-buffering', 'no')
      .send(stream)
  );
}
