/** The editor's test panel (docs/simulator.md): a WebSocket in, frames out; calls and chats. */
import { attachmentLimits } from '@voxplan/contracts';
import type { Channel } from '../channel.ts';
import { publishSimulatorTurn, turnFrames } from './simulator.connection.ts';
import { simulatorDialer } from './simulator.outbound.ts';
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
  // The test panel's outbound calls: placed at once, the tester playing the callee.
  dial: simulatorDialer,
  limits: { text: null, options: null, attachments: attachmentLimits.simulator ?? [], inboundMedia: [], customerWindowMs: null },
};
