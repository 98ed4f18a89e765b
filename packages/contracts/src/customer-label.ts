/**
 * How a chat's customer reads in a list: their name, else their e-mail, else null (the caller's
 * number or the protocol then). Its own module, without zod, for the console's menu badge and
 * notifications, which every signed-in screen loads (e2e/bundle.test.ts).
 */
export const customerLabel = (customer: { name: string | null; email: string | null } | null | undefined): string | null =>
  customer?.name || customer?.email || null;
