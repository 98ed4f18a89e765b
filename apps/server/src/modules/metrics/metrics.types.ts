/**
 * What the server counts for GET /metrics (docs/metrics.md), as the app's context names it
 * (context.ts, `ctx.metrics`); metrics.ts makes and serves it. Declared apart so that naming it
 * imports nothing that imports the context back.
 */
import type { Counter, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  sessionsStarted: Counter<'channel' | 'provider'>;
  sessionsEnded: Counter<'channel' | 'provider' | 'disposition'>;
  sessionsRefused: Counter<'reason'>;
  turnDuration: Histogram<'provider'>;
  handOffs: Counter<'result'>;
  aiRequests: Counter<'operation' | 'result'>;
  aiTokens: Counter;
  aiRefused: Counter;
  mediaFetchFailures: Counter<'kind'>;
}
