/** The editor's test panel (docs/simulator.md): a WebSocket in, frames out; calls and chats. */
import { attachmentLimits } from '@voxplan/contracts';
import type { Channel } from '../channel.ts';
import { publishSimulatorTurn, turnFrames } from './simulator.connection.ts';
import { simulatorPlugin } from './simulator.routes.ts';

export const simulatorChannel: Channel = {
  provider: 'simulator',
  sessions: ['voice', 'chat'],
  routes: async (api, options) => {
    await api.register(simulatorPlugin, options);
  },
  render: turnFrames,
  // The panel runs the plan for its author, who reads a person's messages in the console.
  chat: { turn: publishSimulatorTurn },
  limits: { text: null, options: null, attachments: attachmentLimits.simulator ?? [], inboundMedia: [], customerWindowMs: null },
};
