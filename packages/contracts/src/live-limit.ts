/**
 * The most sessions `GET /stats/live` lists, and the dashboard keeps as the live feed adds more: a
 * tenant with thousands of calls would otherwise get them all in one answer, and a table of them.
 * Alone in its module so that the dashboard's route imports it without the schemas (and zod).
 */
export const LIVE_SESSIONS_LIMIT = 200;
