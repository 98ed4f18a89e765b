/**
 * WebSocket text frames as a server sends them (RFC 6455, 5.2: FIN set, opcode 1, no mask, no
 * extension bits), several in one buffer: the simulator writes the frames of one pass of the event
 * loop with one socket write. Sent one by one through `ws`, each frame was a header and a body
 * written to the socket apart, and the socket's writev of twice as many pieces as frames was the
 * simulator's largest cost on a plan of many blocks (bench/README.md, bench:budget).
 */
const FIN_TEXT = 0x81;

const headerBytes = (length: number): number => (length < 126 ? 2 : length < 65_536 ? 4 : 10);

export function encodeTextFrames(texts: readonly string[]): Buffer {
  const lengths = new Array<number>(texts.length);
  let total = 0;
  for (let i = 0; i < texts.length; i++) {
    const length = Buffer.byteLength(texts[i]!);
    lengths[i] = length;
    total += headerBytes(length) + length;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const length = lengths[i]!;
    out[at] = FIN_TEXT;
    if (length < 126) {
      out[at + 1] = length;
      at += 2;
    } else if (length < 65_536) {
      out[at + 1] = 126;
      out.writeUInt16BE(length, at + 2);
      at += 4;
    } else {
      // A 64-bit length; a frame here is far under 2^32 bytes.
      out[at + 1] = 127;
      out.writeUInt32BE(0, at + 2);
      out.writeUInt32BE(length, at + 6);
      at += 10;
    }
    at += out.write(texts[i]!, at, length, 'utf8');
  }
  return out;
}
