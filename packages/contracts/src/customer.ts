import { z } from 'zod';

/**
 * Who the customer of a chat is, as its channel told it (docs/conversations.md, "Who the customer
 * is"): WhatsApp's profile name, the web chat's pre-chat form and page, or the site's signed-in user
 * whose id the site signed with the number's identity key (docs/channels-webchat.md). Shown to
 * agents so that two waiting chats are told apart; never used to decide anything.
 */
export const chatCustomerSchema = z.object({
  name: z.string().nullable().describe('the name the customer gave, or WhatsApp’s profile name'),
  email: z.string().nullable(),
  page_url: z.string().nullable().describe('web chat: the address of the page the chat was started from'),
  external_id: z.string().nullable().describe('web chat: the site’s own id of its signed-in user, only when its signature was right'),
  verified: z.boolean().describe('true when the site signed who the user is (name and e-mail then come from the site, not the visitor)'),
});
export type ChatCustomer = z.infer<typeof chatCustomerSchema>;

/** The fields a web chat number may ask before the first message (off by default). */
export const webchatPrechatFields = ['name', 'email'] as const;
export type WebchatPrechatField = (typeof webchatPrechatFields)[number];

export const customerLimits = { name: 100, email: 254, pageUrl: 2000, externalId: 200 } as const;

export { customerLabel } from './customer-label.ts';
