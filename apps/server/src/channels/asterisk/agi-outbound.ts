/**
 * A call the server placed (ami-dialer.ts), answered: the outbound context hands it to FastAGI as
 * `agi://…/outbound/<session id>` with AMD's verdict as the argument (docs/channels-asterisk.md,
 * "Calls placed by the server"). This starts that session's plan, once the PBX's address is in the
 * session's tenant's access-control list, as an inbound call's is.
 */
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { findCall } from '../../modules/outbound-calls/outbound-calls.repository.ts';
import { isAddressAllowed } from '../../modules/acl/acl.service.ts';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import { answeredByOfAmd } from './ami-dialer.ts';

const OUTBOUND_SCRIPT = /^\/*outbound\/([0-9A-Za-z-]{1,64})$/;

/** The session an AGI request names as an answered outbound call, else null (an inbound call names a number). */
export function outboundSessionOf(variables: Record<string, string>): string | null {
  const script = (variables.agi_network_script ?? '').split('?')[0] ?? '';
  return OUTBOUND_SCRIPT.exec(script)?.[1] ?? null;
}

/** The PBX's address is not in the session's tenant's access-control list: nothing runs. */
export class OutboundAddressRefused extends Error {
  constructor(readonly tenantId: number) {
    super('the PBX address is not in the tenant’s access-control list');
  }
}

/**
 * Starts the plan of the answered outbound session: its first turn, and its tenant. `answered_by`
 * is AMD's verdict when detection ran (AMDSTATUS set), else left to the core (not asked).
 */
export async function startOutboundSession(ctx: AppContext, sessionId: string, variables: Record<string, string>, address: string): Promise<{ tenantId: number; outcome: TurnOutcome }> {
  // Only a call this channel placed: another provider's session is not the PBX's to start.
  const call = await findCall(ctx.db, sessionId);
  if (call?.provider !== 'asterisk') throw notFound('session_not_found');
  let tenantId = 0;
  const amdStatus = (variables.agi_arg_1 ?? '').trim();
  const outcome = await ctx.outboundCalls.answered(sessionId, {
    provider_call_id: sessionId,
    ...(amdStatus === '' ? {} : { answered_by: answeredByOfAmd(amdStatus) }),
    source_ip: address,
    authorize: async (tenant) => {
      tenantId = tenant;
      if (!(await isAddressAllowed(ctx.db, tenant, address))) throw new OutboundAddressRefused(tenant);
    },
  });
  return { tenantId, outcome };
}
