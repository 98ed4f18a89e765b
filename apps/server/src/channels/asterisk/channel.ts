/** Asterisk over FastAGI (docs/channels-asterisk.md): a TCP listener, AGI commands; calls only. */
import type { Channel } from '../channel.ts';
import { runAgiActions } from './agi-actions.ts';
import { startAgiServer } from './agi-server.ts';

export const asteriskChannel: Channel = {
  provider: 'asterisk',
  sessions: ['voice'],
  // The PBX connects to the AGI port (AGI_PORT); without it configured there is nothing to listen on.
  listen: (ctx, log) => (ctx.config.agi ? startAgiServer(ctx, ctx.config.agi, log) : Promise.resolve(null)),
  render: runAgiActions,
  limits: { text: null, options: 0, attachments: [], inboundMedia: [], customerWindowMs: null },
};
