/**
 * One FastAGI connection as Asterisk's documentation describes the protocol (docs/channels-asterisk.md):
 * the PBX opens it for one call and sends its variables (`agi_name: value` lines, then an empty
 * line); then we send commands one line at a time and each is answered by `200 result=…`, or by an
 * error code (`510`, `511` on a dead channel, `520` with a usage text of several lines). When the
 * caller hangs up, Asterisk sends a lone `HANGUP` line and answers what follows with `-1` or `511`.
 */
import type { Socket } from 'node:net';

/** A reply to a command: `200 result=1 (speech) endpos=1234` gives code 200, result "1", data "speech", endpos "1234". */
export interface AgiReply {
  code: number;
  result: string;
  /** The text between parentheses after the result, when there is one. */
  data: string | null;
  /** Named values after the result (`endpos`, `results`, `text0`…), unquoted. */
  fields: Record<string, string>;
}

/** The peer closed the connection, went quiet past a time limit, or broke the protocol. */
export class AgiConnectionError extends Error {
  constructor(
    message: string,
    readonly reason: 'closed' | 'timeout' | 'protocol',
  ) {
    super(message);
  }
}

/** A line this long is no AGI line: the peer is not Asterisk (the variables block is a few KB in all). */
const MAX_LINE_BYTES = 8 * 1024;
const MAX_VARIABLES = 200;
/**
 * What may wait unread: Asterisk sends its variables block, then one reply per command (a `520`
 * usage text is a few lines), so more than the block's lines, or than a few times its bytes, is a
 * peer flooding the port. Each queued line costs far more memory than its bytes (an empty line is
 * a string and a slot of the queue), so the count matters as much as the size.
 */
export const MAX_QUEUED_LINES = MAX_VARIABLES + 56;
export const MAX_QUEUED_BYTES = 64 * 1024;

/** Quotes an argument for a command line: Asterisk splits on spaces unless quoted, with `\"` and `\\` escaped. */
export function agiQuote(value: string): string {
  return `"${value.replace(/[\r\n]+/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Parses `200 result=-1 (timeout) endpos=0 text0="hello world"`. Null when the line is not a reply. */
export function parseAgiReply(line: string): AgiReply | null {
  const head = /^(\d{3})[ -](.*)$/.exec(line);
  if (!head) return null;
  const code = Number(head[1]);
  const rest = head[2] ?? '';
  const resultMatch = /^result=(\S*)(?:\s+\(([^)]*)\))?\s*(.*)$/.exec(rest);
  if (!resultMatch) return { code, result: '', data: null, fields: {} };
  const fields: Record<string, string> = {};
  for (const field of (resultMatch[3] ?? '').matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = field[2] ?? '';
    fields[field[1]!] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return { code, result: resultMatch[1] ?? '', data: resultMatch[2] ?? null, fields };
}

/**
 * Reads the socket line by line and sends commands in order. A `HANGUP` line may arrive at any
 * time, between replies: it is noted (`hungUp`) rather than taken as a reply.
 */
export class AgiConnection {
  private buffered = '';
  private readonly lines: string[] = [];
  /** The bytes of `lines`, counted as they are queued and taken. */
  private linesBytes = 0;
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;
  /** The caller hung up (Asterisk said `HANGUP`, or answered a command with `511`). */
  hungUp = false;

  constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    // A PBX that vanished without closing is found by the kernel rather than by a command's time limit.
    socket.setKeepAlive(true, 30_000);
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('end', () => this.finish());
    socket.on('close', () => this.finish());
    socket.on('error', () => this.finish());
  }

  get closed(): boolean {
    return this.ended;
  }

  /** What waits unread: lines and their bytes. */
  get queued(): { lines: number; bytes: number } {
    return { lines: this.lines.length, bytes: this.linesBytes + Buffer.byteLength(this.buffered) };
  }

  private receive(chunk: string): void {
    // A connection that is done reads nothing more: its socket is being destroyed.
    if (this.ended) return;
    this.buffered += chunk;
    let newline = this.buffered.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffered.slice(0, newline).replace(/\r$/, '');
      this.buffered = this.buffered.slice(newline + 1);
      if (line === 'HANGUP') this.hungUp = true;
      else this.push(line);
      if (this.lines.length > MAX_QUEUED_LINES || this.linesBytes > MAX_QUEUED_BYTES) {
        this.close();
        return;
      }
      newline = this.buffered.indexOf('\n');
    }
    if (Buffer.byteLength(this.buffered) > MAX_LINE_BYTES) this.close();
  }

  private push(line: string): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter(line);
    } else {
      this.lines.push(line);
      // The line break counts as a byte: a flood of empty lines is bytes too.
      this.linesBytes += Buffer.byteLength(line) + 1;
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(null);
  }

  /** The next line; AgiConnectionError when the peer closes or says nothing for `timeoutMs`. */
  private nextLine(timeoutMs: number): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) {
      this.linesBytes -= Buffer.byteLength(queued) + 1;
      return Promise.resolve(queued);
    }
    if (this.ended) return Promise.reject(new AgiConnectionError('connection closed', 'closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new AgiConnectionError(`no answer within ${timeoutMs} ms`, 'timeout'));
      }, timeoutMs);
      this.waiter = (line) => {
        clearTimeout(timer);
        if (line === null) reject(new AgiConnectionError('connection closed', 'closed'));
        else resolve(line);
      };
    });
  }

  /** The variables block Asterisk opens with: `agi_request`, `agi_network_script`, `agi_callerid`, … */
  async readVariables(timeoutMs: number): Promise<Record<string, string>> {
    const deadline = Date.now() + timeoutMs;
    const variables: Record<string, string> = {};
    for (let count = 0; ; count += 1) {
      const line = await this.nextLine(Math.max(1, deadline - Date.now()));
      if (line === '') return variables;
      const match = /^(agi_\w+):\s?(.*)$/.exec(line);
      if (!match || count >= MAX_VARIABLES) throw new AgiConnectionError(`not an AGI variable line: ${line.slice(0, 80)}`, 'protocol');
      variables[match[1]!] = match[2] ?? '';
    }
  }

  /**
   * Sends a command and waits for its reply (a `520` usage text is read to its end). A reply of
   * `511` or a closed socket marks the call hung up; the caller decides what `-1` means for its command.
   */
  async command(line: string, timeoutMs: number): Promise<AgiReply> {
    if (this.ended) throw new AgiConnectionError('connection closed', 'closed');
    this.socket.write(`${line}\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await this.nextLine(Math.max(1, deadline - Date.now()));
      const reply = parseAgiReply(text);
      if (!reply) throw new AgiConnectionError(`not an AGI reply: ${text.slice(0, 80)}`, 'protocol');
      if (text.startsWith('520-')) {
        // The usage text runs until "520 End of proper usage."
        let usage = await this.nextLine(Math.max(1, deadline - Date.now()));
        while (!usage.startsWith('520 ')) usage = await this.nextLine(Math.max(1, deadline - Date.now()));
        return { ...reply, result: '' };
      }
      if (reply.code === 511) this.hungUp = true;
      return reply;
    }
  }

  /**
   * Ends the connection both ways at once: `end()` alone only closes our side, and a peer that
   * keeps its side open would go on being read (and its lines queued) for as long as it likes.
   * Nothing is lost: every command waited for its reply before the connection is closed.
   */
  close(): void {
    this.finish();
    this.buffered = '';
    this.lines.length = 0;
    this.linesBytes = 0;
    this.socket.destroy();
  }
}
