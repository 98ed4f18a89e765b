/**
 * An outside desk as docs/handoff.md ("Keeping the conversation") describes one, for tests: it keeps
 * every chat it is handed (answers `{"status":"accepted"}`) and takes the customer's later messages
 * as signed `chat.message` events, recording each request with its signature headers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeskRequest {
  event: string;
  /** X-Voxplan-Delivery: the idempotency key, the same on every attempt of one event. */
  delivery: string;
  /** What the desk answered. */
  status: number;
  body: string;
  timestamp: string;
  signature: string;
}

export interface DeskReceiver {
  /** The destination's URL: `http://127.0.0.1:<port>/desk`. */
  url: string;
  received: DeskRequest[];
  /** While true, `chat.message` events are answered 503, as by a desk that is down. */
  failing: boolean;
  close(): Promise<void>;
}

export async function startDeskReceiver(): Promise<DeskReceiver> {
  const received: DeskRequest[] = [];
  const desk = { failing: false };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '');
      const event = header('x-voxplan-event');
      const status = desk.failing && event === 'chat.message' ? 503 : 200;
      received.push({ event, delivery: header('x-voxplan-delivery'), status, body, timestamp: header('x-voxplan-timestamp'), signature: header('x-voxplan-signature') });
      response.writeHead(status, { 'content-type': 'application/json' }).end(event === 'chat.handoff' ? JSON.stringify({ status: 'accepted' }) : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(desk, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/desk`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
