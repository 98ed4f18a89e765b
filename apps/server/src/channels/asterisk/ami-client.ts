/**
 * A client of Asterisk's Manager Interface (AMI, docs/channels-asterisk.md "Calls placed by the
 * server"): one TCP connection, logged in once, on which actions are sent with an ActionID and
 * their responses matched to it; everything else the manager sends is an event. Written here
 * rather than taken from npm: the AMI clients there are unmaintained for years, untyped, and none
 * tells an unreachable manager from a refused login, which the API must answer differently.
 *
 * The protocol, as main/manager.c speaks it: on connect a greeting line `Asterisk Call Manager/<v>`;
 * then messages both ways, each `Key: Value` lines ending in an empty line (CRLF). A response
 * carries `Response: Success|Error|Goodbye` and the action's ActionID; an event carries `Event:`
 * (an async Originate's outcome, `OriginateResponse`, carries the ActionID too).
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';

/** An AMI message: its fields by lower-cased key (a key sent twice keeps its last value). */
export type AmiMessage = Record<string, string>;

/** Why the manager could not be used: its catalogue code (docs/errors.md) and what happened. */
export type AmiFailure = 'ami_unreachable' | 'ami_login_refused';

export class AmiError extends Error {
  constructor(
    readonly code: AmiFailure,
    message: string,
  ) {
    super(message);
    this.name = 'AmiError';
  }
}

export interface AmiClientOptions {
  host: string;
  port: number;
  username: string;
  secret: string;
  /** How long connecting, the greeting and the login may take together (default 5 s). */
  connectTimeoutMs?: number;
  /** The first wait before reconnecting a connection that dropped; doubled up to 30 s (default 1 s). */
  reconnectDelayMs?: number;
}

/** A field's value may not hold a line break: it would end the field, and start another (or another action). */
function checkedValue(key: string, value: string): string {
  if (/[\r\n]/.test(value) || /[\r\n:]/.test(key)) throw new Error(`AMI field ${key} holds a line break`);
  return value;
}

/** The fields of an action, a key given several values (Originate's Variable) sent once per value. */
export type AmiAction = Record<string, string | number | boolean | readonly string[] | undefined>;

function serialise(action: AmiAction, actionId: string): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(action)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [String(value)]) lines.push(`${key}: ${checkedValue(key, String(one))}`);
  }
  lines.push(`ActionID: ${actionId}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function parse(block: string): AmiMessage {
  const message: AmiMessage = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    message[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return message;
}

interface Pending {
  resolve: (message: AmiMessage) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** What a socket error says to the operator: the address and the system's reason. */
const unreachable = (options: AmiClientOptions, reason: string) =>
  new AmiError('ami_unreachable', `the Asterisk manager at ${options.host}:${options.port} could not be reached: ${reason}`);

/**
 * Events: `event` (an AmiMessage with `event`), `connected` (after each login), `disconnected`
 * (the Error that ended it). Actions sent while disconnected connect first; a connection that
 * drops after a login is reconnected in the background, with a growing delay.
 */
export class AmiClient extends EventEmitter<{ event: [AmiMessage]; connected: []; disconnected: [Error] }> {
  private socket: net.Socket | null = null;
  private connecting: Promise<void> | null = null;
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs: number;

  constructor(private readonly options: AmiClientOptions) {
    super();
    this.reconnectDelayMs = options.reconnectDelayMs ?? 1_000;
  }

  /** Whether a logged-in connection is open now. */
  get isConnected(): boolean {
    return this.socket !== null && this.connecting === null;
  }

  /** Connects and logs in (once; later calls share it). Rejects with AmiError: unreachable, or the login refused. */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(unreachable(this.options, 'the client is closed'));
    if (this.socket && !this.connecting) return Promise.resolve();
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const { host, port } = this.options;
    const timeoutMs = this.options.connectTimeoutMs ?? 5_000;
    const socket = net.connect({ host, port });
    socket.setEncoding('utf8');
    socket.setKeepAlive(true, 30_000);
    const greeted = new Promise<void>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => fail(`no manager greeting within ${timeoutMs} ms`), timeoutMs);
      const fail = (reason: string) => {
        clearTimeout(timer);
        socket.destroy();
        reject(unreachable(this.options, reason));
      };
      socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      socket.once('close', () => fail('the connection closed before the greeting'));
      const onData = (chunk: string) => {
        buffered += chunk;
        const newline = buffered.indexOf('\n');
        if (newline === -1) {
          if (buffered.length > 1024) fail('what answered is not an Asterisk manager');
          return;
        }
        socket.off('data', onData);
        socket.removeAllListeners('error');
        socket.removeAllListeners('close');
        clearTimeout(timer);
        const greeting = buffered.slice(0, newline).trim();
        // Asterisk's greeting (manager.c): anything else is not a manager, whatever listens there.
        if (!/^Asterisk Call Manager\//.test(greeting)) {
          socket.destroy();
          reject(unreachable(this.options, `what answered is not an Asterisk manager (${JSON.stringify(greeting.slice(0, 60))})`));
          return;
        }
        this.attach(socket, buffered.slice(newline + 1));
        resolve();
      };
      socket.on('data', onData);
    });
    await greeted;
    // The login is the first action on the connection; until it is accepted nothing else is sent.
    let answer: AmiMessage;
    try {
      answer = await this.send({ Action: 'Login', Username: this.options.username, Secret: this.options.secret, Events: 'call' }, timeoutMs, socket);
    } catch (error) {
      socket.destroy();
      throw error instanceof AmiError ? error : unreachable(this.options, (error as Error).message);
    }
    if (answer.response?.toLowerCase() !== 'success') {
      socket.destroy();
      throw new AmiError('ami_login_refused', `the Asterisk manager at ${host}:${port} refused the login of ${JSON.stringify(this.options.username)}: ${answer.message ?? 'no reason given'}`);
    }
    this.socket = socket;
    this.reconnectDelayMs = this.options.reconnectDelayMs ?? 1_000;
    this.emit('connected');
  }

  /** Reads messages off a greeted connection; its end fails what waits on it and schedules a reconnect. */
  private attach(socket: net.Socket, rest: string): void {
    let buffered = rest;
    const drain = () => {
      for (let end = buffered.search(/\r?\n\r?\n/); end !== -1; end = buffered.search(/\r?\n\r?\n/)) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
        if (block.trim() !== '') this.dispatch(parse(block));
      }
    };
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      drain();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const wasLoggedIn = this.socket === socket;
      if (wasLoggedIn) this.socket = null;
      const error = unreachable(this.options, 'the connection to the manager closed');
      for (const [id, pending] of this.pending) {
        clearTimeout(pending.timer);
        pending.reject(error);
        this.pending.delete(id);
      }
      if (!wasLoggedIn) return;
      this.emit('disconnected', error);
      this.scheduleReconnect();
    });
    drain();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }

  private dispatch(message: AmiMessage): void {
    const id = message.actionid;
    // An event may carry the ActionID of the action that caused it (OriginateResponse): it is an event all the same.
    if (message.response !== undefined && id !== undefined) {
      const pending = this.pending.get(id);
      if (pending) {
        clearTimeout(pending.timer);
        this.pending.delete(id);
        pending.resolve(message);
        return;
      }
    }
    if (message.event !== undefined) this.emit('event', message);
  }

  /** A new ActionID, unique to this process: to be given to `action` when its events must be listened for before it is sent. */
  newActionId(): string {
    return `voxplan-${process.pid}-${this.nextId++}`;
  }

  private send(action: AmiAction, timeoutMs: number, socket: net.Socket, actionId = this.newActionId()): Promise<AmiMessage> {
    const text = serialise(action, actionId);
    return new Promise<AmiMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(actionId);
        reject(unreachable(this.options, `no answer to ${String(action.Action)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(actionId, { resolve, reject, timer });
      socket.write(text);
    });
  }

  /**
   * Sends an action (connecting first when needed) and answers its response, whatever it says
   * (`response` is `Success` or `Error`, `message` why). ActionID is added: `actionId` (from
   * newActionId, when the caller listens for the action's events before sending it) or a new one.
   */
  async action(action: AmiAction, options: { timeoutMs?: number; actionId?: string } = {}): Promise<AmiMessage> {
    await this.connect();
    const socket = this.socket;
    if (!socket) throw unreachable(this.options, 'the connection to the manager closed');
    return this.send(action, options.timeoutMs ?? 10_000, socket, options.actionId);
  }

  /** Logs off and closes; no reconnect after it. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (!socket) return;
    await this.send({ Action: 'Logoff' }, 1_000, socket).catch(() => undefined);
    socket.destroy();
    this.socket = null;
  }
}
