/**
 * The engine's WhatsApp ports: templates (sent, or read as text on other chats) and the customer
 * window a turn runs in (docs/channels-whatsapp.md). Beside channels/messaging.ts, which sends a
 * `send_message` through the same channel; the session runtime finds both in `ctx.channels.enginePorts`.
 */
import type { CustomerWindow, Templates } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import { isSessionWindowOpen, planTemplateText, sendPlanTemplate } from './plan-templates.ts';

export function createTemplates(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>): Templates {
  return {
    send: (request) => sendPlanTemplate(ctx, request),
    plainText: (request) => planTemplateText(ctx, request),
  };
}

export function createCustomerWindow(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>): CustomerWindow {
  return { isOpen: (session, at) => isSessionWindowOpen(ctx, session, at) };
}
