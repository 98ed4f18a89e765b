/**
 * An outside server's answer as the plan's requests read it (blocks.md, "Requests leaving the
 * server"): its headers flattened, its body decompressed and capped, its text decoded by its charset.
 */
import type http from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { OutboundError } from '@voxplan/engine/ports';

export function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function decompressed(response: http.IncomingMessage): Readable {
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  // Errors end up on the last stream, where readBody listens; the callback only keeps them from being unhandled.
  return pipeline(response, decoder, () => {});
}

/**
 * Reads the answer up to `maxBytes`, counted after decompression so that a small gzip bomb
 * is caught too. Content-Length only lets a too-large answer fail before its first byte; a server
 * that sends none, or lies, is stopped by the count. `done` is called once.
 */
export function readBody(response: http.IncomingMessage, method: string, maxBytes: number, done: (error: Error | null, body?: Buffer) => void): void {
  const status = response.statusCode ?? 0;
  if (method === 'HEAD' || status === 204 || status === 304) {
    response.destroy();
    done(null, Buffer.alloc(0));
    return;
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    done(new OutboundError('too_large', `the answer declares ${declared} bytes, more than the ${maxBytes} allowed`));
    return;
  }
  const stream = decompressed(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (error: Error | null, body?: Buffer) => {
    if (settled) return;
    settled = true;
    done(error, body);
  };
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      settle(new OutboundError('too_large', `the answer is larger than the ${maxBytes} bytes allowed`));
      stream.destroy();
      return;
    }
    chunks.push(chunk);
  });
  // A connection closed before the whole body came is an error of the response (and the pipeline), never an end.
  stream.on('error', (error) => settle(error));
  stream.on('end', () => settle(null, Buffer.concat(chunks, size)));
}

/** The charset the answer names, UTF-8 when it names none or one this runtime cannot decode. */
export function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset) {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // An unknown label: fall through to UTF-8, the web's default.
    }
  }
  // Buffer's decoder replaces bad sequences as TextDecoder does and costs less than making one; TextDecoder drops a byte order mark.
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
