/**
 * An outside desk as docs/handoff.md ("Keeping the conversation") describes one, for tests: it keeps
 * every chat it is handed (answers `{"status":"accepted"}`) and takes the customer's later messages
 * as signed `chat.message` events, recording each request with its signature headers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeskRequest {
  event: string;
  body: string;
  timestamp: string;
  signature: string;
}

export interface DeskReceiver {
  /** The destination's URL: `http://127.0.0.1:<port>/desk`. */
  url: string;
  received: DeskRequest[];
  close(): Promise<void>;
}

export async function startDeskReceiver(): Promise<DeskReceiver> {
  const received: DeskRequest[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '');
      received.push({ event: header('x-voxplan-event'), body, timestamp: header('x-voxplan-timestamp'), signature: header('x-voxplan-signature') });
      response.writeHead(200, { 'content-type': 'application/json' }).end(header('x-voxplan-event') === 'chat.handoff' ? JSON.stringify({ status: 'accepted' }) : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/desk`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
