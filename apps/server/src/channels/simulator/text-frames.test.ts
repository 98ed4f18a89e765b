import { describe, expect, test } from 'vitest';
import * as ws from 'ws';
import { encodeTextFrames } from './text-frames.ts';

/** `ws`'s frame parser: exported by the package (ws/wrapper.mjs), not declared by @types/ws. */
interface FrameReader {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  write(chunk: Buffer, done: () => void): void;
}
const { Receiver } = ws as unknown as { Receiver: new (options: { isServer: boolean }) => FrameReader };

/** What a client's WebSocket reads from the bytes: `ws`'s own parser, as the panel's browser parses them. */
function read(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const messages: string[] = [];
    const receiver = new Receiver({ isServer: false });
    receiver.on('message', (data, isBinary) => messages.push(isBinary ? '(binary)' : data.toString()));
    receiver.on('error', reject);
    receiver.write(bytes, () => resolve(messages));
  });
}

describe('the simulator frames of one pass, written in one buffer', () => {
  test('read back as the same text messages in the same order, at every length form', async () => {
    const texts = ['', 'a'.repeat(125), 'b'.repeat(126), JSON.stringify({ type: 'node', name: 'Atenção ✓ 🙂' }), 'c'.repeat(65_535), 'é'.repeat(40_000), 'd'.repeat(70_000)];
    expect(await read(encodeTextFrames(texts))).toEqual(texts);
  });
});
