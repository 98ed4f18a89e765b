/** Twilio Programmable Voice (docs/channels-twilio.md): webhooks in, TwiML out, and the calls a plan places; calls only. */
import type { Channel } from '../channel.ts';
import { twilioDialer } from './dialer.ts';
import { endLostTwilioCalls } from './lost-calls.ts';
import { twilioHooksPlugin } from './twilio.routes.ts';
import { outcomeTwiml } from './twiml.ts';

export const twilioChannel: Channel = {
  provider: 'twilio',
  sessions: ['voice'],
  // Called by Twilio, which signs its requests instead of sending a token.
  routes: async (api, { ctx }) => {
    await api.register(twilioHooksPlugin, { ctx });
  },
  render: outcomeTwiml,
  dial: twilioDialer,
  endLostCalls: endLostTwilioCalls,
  limits: { text: null, options: 0, attachments: [], inboundMedia: [], customerWindowMs: null },
};
