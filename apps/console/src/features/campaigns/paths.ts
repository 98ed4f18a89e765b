/**
 * The campaigns' resource path, apart from status.ts: the dashboard's campaign rows use it, and
 * must not bring the contracts' schemas (zod) into the page every user lands on.
 */
export const CAMPAIGNS = '/campaigns';
