/** The WhatsApp Cloud API (docs/channels-whatsapp.md): Meta's webhook in, Graph API messages out; chats only. */
import { attachmentLimits } from '@voxplan/contracts';
import type { Channel } from '../channel.ts';
import { whatsappDialer } from './dialer.ts';
import { personMessages, replyMessages, whatsappLimits } from './outbound.ts';
import { customerLastWrote } from './customer-window.ts';
import { approvedTemplatesFor, sendPersonTemplate } from './person-templates.ts';
import { accountByNumber, CUSTOMER_WINDOW_MS, sendChatTurn, sendWhatsApp } from './whatsapp-channel.ts';
import { whatsappTemplateRoutes } from './template.routes.ts';
import { startTemplateSync } from './template-sync.ts';
import { whatsappHooksPlugin } from './whatsapp.routes.ts';

export const whatsappChannel: Channel = {
  provider: 'whatsapp',
  sessions: ['chat'],
  // Called by Meta, which signs its deliveries with the number's app secret instead of sending a token.
  routes: async (api, { ctx }) => {
    await api.register(whatsappHooksPlugin, { ctx });
    // Signed-in users' routes of the channel, in their own scope so that the hooks above stay open to Meta.
    await api.register(whatsappTemplateRoutes, { ctx });
  },
  // Not a listener: the periodic template sync (template-sync.ts), started with the server, stopped with it.
  listen: (ctx, log) => Promise.resolve(startTemplateSync(ctx, log)),
  render: replyMessages,
  // Conversations the business starts: no ringing, the plan's first turn is the opening message (docs/outbound.md).
  dial: whatsappDialer,
  chat: {
    turn: sendChatTurn,
    message: async (ctx, to, message) => {
      const account = await accountByNumber(ctx, to.tenant_id, to.called);
      return account ? sendWhatsApp(ctx, account, to.caller, personMessages(message), to.session_id) : { ok: false, reason: 'not_configured' };
    },
    customerLastWrote,
    templates: approvedTemplatesFor,
    sendTemplate: sendPersonTemplate,
  },
  // Voice notes are transcribed (docs/ai.md); other media is recorded for the window only.
  limits: { text: whatsappLimits.text, options: whatsappLimits.listRows, attachments: attachmentLimits.whatsapp ?? [], inboundMedia: ['audio'], customerWindowMs: CUSTOMER_WINDOW_MS },
};
