/** The resource of the do-not-call screen (docs/do-not-call.md). */
export const DO_NOT_CALL = '/do-not-call';
