import { type CampaignAction, campaignActionFrom, campaignActions, type CampaignStatus, type NumberProvider } from '@voxplan/contracts';

export { CAMPAIGNS } from './paths.ts';

/** The providers whose numbers can start a campaign's conversations: calls, or WhatsApp's (docs/campaigns.md); a web chat's cannot. */
export const callingProviders: readonly NumberProvider[] = ['twilio', 'asterisk', 'whatsapp'];

/** Started once: its plan and number no longer change. */
export const isStarted = (status: CampaignStatus): boolean => status !== 'draft';

export const isFinished = (status: CampaignStatus): boolean => status === 'completed' || status === 'cancelled';

/** The controls a campaign in `status` takes, in the order the screen shows them. */
export const actionsFor = (status: CampaignStatus): CampaignAction[] => campaignActions.filter((action) => campaignActionFrom[action].includes(status));

/** The one control that moves it on (the list's "next action"): start, pause or resume; none when finished. */
export const nextActionFor = (status: CampaignStatus): CampaignAction | undefined => actionsFor(status).find((action) => action !== 'cancel');
