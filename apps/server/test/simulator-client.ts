/**
 * A simulator client over a real WebSocket, for the tests and the benchmark: it keeps every frame
 * the server sent, and waits for the ones a test expects.
 */
import type { SimulatorClientFrame, SimulatorServerFrame } from '@voxplan/contracts/simulator';
import { bearerProtocolPrefix, simulatorProtocol } from '@voxplan/contracts/simulator';
import WebSocket from 'ws';

export interface SimulatorClient {
  socket: WebSocket;
  /** Every frame received so far, in order. */
  frames: SimulatorServerFrame[];
  send(frame: SimulatorClientFrame | Record<string, unknown> | string): void;
  /** Resolves with the first frame of `type` not waited for yet that matches. */
  waitFor<T extends SimulatorServerFrame['type']>(type: T, match?: (frame: Extract<SimulatorServerFrame, { type: T }>) => boolean): Promise<Extract<SimulatorServerFrame, { type: T }>>;
  /** Sends an input and answers its frames, up to and including its `turn` (or `error`) frame. */
  turn(frame: SimulatorClientFrame): Promise<SimulatorServerFrame[]>;
  /** Resolves when the socket closed, with its close code. */
  closed: Promise<number>;
  close(): Promise<number>;
}

export interface ConnectOptions {
  /** How the token travels: a header (API clients) or the subprotocol list (browsers). */
  tokenIn?: 'header' | 'protocol';
  headers?: Record<string, string>;
}

/** Opens the simulator of plan `planId`; rejects with the HTTP status and body when the server refuses the upgrade. */
export function connectSimulator(baseUrl: string, planId: number, token: string, options: ConnectOptions = {}): Promise<SimulatorClient> {
  const url = `${baseUrl.replace(/^http/, 'ws')}/api/v1/visual-plans/${planId}/simulator`;
  const protocols = options.tokenIn === 'protocol' ? [simulatorProtocol, `${bearerProtocolPrefix}${token}`] : [simulatorProtocol];
  const headers = { ...(options.tokenIn !== 'protocol' && { authorization: `Bearer ${token}` }), ...options.headers };
  const socket = new WebSocket(url, protocols, { headers });
  const frames: SimulatorServerFrame[] = [];
  let consumed = 0;
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(data.toString()) as SimulatorServerFrame);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));

  /** The first frame not waited for yet that matches; the frames before it count as seen. */
  function waitForFrame(match: (frame: SimulatorServerFrame) => boolean): Promise<SimulatorServerFrame> {
    return new Promise((resolve, reject) => {
      const look = () => {
        for (let i = consumed; i < frames.length; i++) {
          if (match(frames[i]!)) {
            consumed = i + 1;
            resolve(frames[i]!);
            return;
          }
        }
        if (socket.readyState === WebSocket.CLOSED) reject(new Error('the socket closed before the frame came'));
        else waiters.push(look);
      };
      void closed.then(() => waiters.includes(look) && look());
      look();
    });
  }

  const client: SimulatorClient = {
    socket,
    frames,
    send(frame) {
      socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    },
    waitFor(type, match) {
      return waitForFrame((frame) => frame.type === type && (!match || match(frame as never))) as never;
    },
    async turn(frame) {
      const from = consumed;
      client.send(frame);
      const eventId = frame.type === 'start' ? 'start' : frame.id;
      // An input ends with its turn frame, or with an error frame when it was refused.
      await waitForFrame((answer) => (answer.type === 'turn' || answer.type === 'error') && answer.event_id === eventId);
      return frames.slice(from, consumed);
    },
    closed,
    close() {
      socket.close();
      return closed;
    },
  };

  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { statusCode: response.statusCode, body })));
    });
    socket.once('error', reject);
  });
}

/** A compact line per frame, for asserting what the panel would show in order. */
export function describeFrames(frames: SimulatorServerFrame[]): string[] {
  return frames.map((frame) => {
    switch (frame.type) {
      case 'node':
        return `node ${frame.node.node_id}`;
      case 'exit':
        return `exit ${frame.node.node_id} ${frame.node.exit}`;
      case 'action': {
        const action = frame.action;
        if (action.type === 'say' || action.type === 'reply') return `${action.type} ${action.text}`;
        if (action.type === 'dial') return `dial ${action.uri}`;
        if (action.type === 'hangup') return `hangup ${action.cause}`;
        return action.type;
      }
      case 'turn':
        return `turn ${frame.status}${frame.ignored ? ' ignored' : ''}${frame.duplicate ? ' duplicate' : ''}`;
      case 'ended':
        return `ended ${frame.report.disposition}`;
      case 'started':
        return `started ${frame.channel} ${frame.version}`;
      case 'discarded':
        return 'discarded';
      case 'error':
        return `error ${frame.error.code}`;
    }
  });
}
