/** The engine's limits (style.md, "The engine"; blocks.md, `call_plan`). docs/engine.md explains each. */
export const engineLimits = {
  /** Blocks a session may enter in all; the next one ends it as failed. */
  maxSteps: 1_000,
  /** Entering the same block this many times in a row ends the session as failed. */
  maxSameNodeInARow: 10,
  /** Plans a session may be in at once through `call_plan`, the first one included. */
  maxPlanDepth: 8,
  /** Transcript lines a session keeps (the newest); chat hand-offs and analyses read them. */
  maxTranscript: 200,
  /** Digit entries a session keeps for its report. */
  maxDigitEntries: 500,
} as const;
