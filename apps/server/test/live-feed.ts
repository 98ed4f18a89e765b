/**
 * The dashboard's live feed (GET /stats/live/events) read as the console reads it, for the tests
 * of one server and of two instances.
 */
import http from 'node:http';
import { type LiveStatsEvent, liveStatsEventSchema } from '@voxplan/contracts';
import { expect } from 'vitest';
import { readEventBlocks } from './sse-blocks.ts';

export interface Feed<E = LiveStatsEvent> {
  events: E[];
  comments: string[];
  /** Resolves when the stream ends (the server ended it, or close()). */
  ended: Promise<void>;
  /** Goes away as a browser tab does: the connection is dropped. */
  close(): void;
}

/**
 * Reads the live feed as the console does, with the Authorization header, event by event. Over
 * a connection of its own (no keep-alive pool), so that closing it leaves nothing behind.
 */
export function openFeed(url: string, token: string, headers: Record<string, string> = {}): Promise<Feed> {
  return openEventFeed(url, token, (data) => liveStatsEventSchema.parse(data), headers);
}

/** Any of the server's event streams (the conversations' too): each `data:` read with `parse`, its type checked against `event:`. */
export async function openEventFeed<E extends { type: string }>(url: string, token: string, parse: (data: unknown) => E, headers: Record<string, string> = {}): Promise<Feed<E>> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}`, ...headers } }, resolve);
    request.on('error', reject);
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  const feed = { events: [] as E[], comments: [] as string[], close: () => response.destroy() };
  readEventBlocks(response, (block) => {
    if (block.startsWith(':')) feed.comments.push(block.slice(1).trim());
    else {
      const type = /^event: (.+)$/m.exec(block)?.[1];
      const event = parse(JSON.parse(/^data: (.+)$/m.exec(block)![1]!));
      expect(event.type).toBe(type);
      feed.events.push(event);
    }
  });
  const ended = new Promise<void>((resolve) => response.on('close', () => resolve()));
  return { ...feed, ended };
}

/** One session's events in short: "started <node>", "<node> <type>" per block, "ended <disposition> <cause>". */
export const summary = (events: LiveStatsEvent[], sessionId: string): string[] =>
  events.flatMap((event) => {
    if (event.type === 'session.started') return event.session.session_id === sessionId ? [`started ${event.session.node_id}`] : [];
    if (event.type === 'campaign.progress' || event.type === 'rollout.auto_rollback' || event.session_id !== sessionId) return [];
    return event.type === 'node.entered' ? [`${event.node_id} ${event.block_type}`] : [`ended ${event.channel} ${event.disposition} ${event.hangup_cause}`];
  });
