/** The web chat widget (docs/channels-webchat.md): its public API and script in, the conversation's view out; chats only. */
import { webchatLimits } from '@voxplan/contracts';
import { attachmentLimits } from '@voxplan/contracts';
import type { Channel } from '../channel.ts';
import { conversationView } from './conversation.ts';
import { webchatPlugin } from './webchat.routes.ts';
import { registerWidgetRoute } from './widget.routes.ts';

export const webchatChannel: Channel = {
  provider: 'webchat',
  sessions: ['chat'],
  // Called by other sites' pages: the number's public key and allowed origins stand for a token.
  routes: async (api, { ctx }) => {
    await api.register(webchatPlugin, { ctx });
  },
  rootRoutes: registerWidgetRoute,
  render: conversationView,
  chat: {
    /**
     * Nothing to push: what the plan says on its own (the idle timeout's chat_text, a hand-off's
     * outcome) is in the stored transcript, and the widget's long poll is woken by the turn's live
     * events on whichever instance it waits. A person's messages are read the same way.
     */
    turn: () => Promise.resolve(),
  },
  // The widget shows an image inline and any other file as a download link (docs/channels-webchat.md).
  limits: { text: webchatLimits.text, options: null, attachments: attachmentLimits.webchat ?? [], inboundMedia: [], customerWindowMs: null },
};
