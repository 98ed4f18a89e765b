import type { AppContext } from '../../context.ts';
import { readSystemSetting } from '../configurations/settings.ts';

export const SECOND_AI_PROVIDER_SETTING = 'feature_second_ai_provider';

/**
 * Whether the second AI provider may be shown and used now. A general setting, so a change
 * applies on the next call; off, its key is neither shown, accepted nor used.
 */
export function isSecondAiProviderOn(ctx: Pick<AppContext, 'db' | 'readCache'>): Promise<boolean> {
  return ctx.readCache.read(`setting\u0000${SECOND_AI_PROVIDER_SETTING}`, ['configurations'], () => readSystemSetting(ctx.db, SECOND_AI_PROVIDER_SETTING));
}
