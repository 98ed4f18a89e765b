import type http from 'node:http';

/**
 * A Server-Sent Events response read block by block, as a browser's EventSource splits it: each
 * block (up to its blank line) handed to `onBlock` as it arrives. The tests' feeds
 * (live-feed.ts) and bench:conversations read the server's streams through it.
 */
export function readEventBlocks(response: http.IncomingMessage, onBlock: (block: string) => void): void {
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (text: string) => {
    buffer += text;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      onBlock(block);
    }
  });
}
