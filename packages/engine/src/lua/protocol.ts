import type { ScriptResult } from '../ports.ts';

/** Messages between the runner (main thread) and a worker running scripts. */
export interface RunMessage {
  id: number;
  script: string;
  /** The session variables as JSON text: the worker parses its own copy. */
  varsJson: string;
}

export type WorkerMessage = { type: 'ready' } | { type: 'result'; id: number; result: ScriptResult };
