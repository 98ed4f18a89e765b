import type { AiFailureCode, ChatbotProvider } from '@voxplan/engine/ports';
import OpenAI from 'openai';
import type { AiConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { tenantIntegrations } from '../tenants/integrations.routes.ts';
import { isSecondAiProviderOn } from './second-provider.ts';

export type AiProviderName = ChatbotProvider;

export type ProviderChoice = { ok: true; client: OpenAI; provider: AiProviderName } | { ok: false; code: AiFailureCode; message: string };

type ProviderContext = Pick<AppContext, 'db' | 'keys' | 'readCache'> & { config: { ai: AiConfig } };

/** Clients kept per key, so their connections are reused between a session's turns; a changed key simply makes a new one. */
const MAX_CLIENTS = 500;

/**
 * The tenant's client for a provider, or why there is none: OpenAI with the integrations'
 * `openai_key`, the second provider (an OpenAI-compatible API at SIPPULSE_BASE_URL) with its
 * `sippulse_ai_key` only while the feature setting is on. The openai library does the timeouts
 * and the retries with back-off on 408, 429, 5xx and lost connections.
 */
export function createAiProviders(ctx: ProviderContext) {
  const clients = new Map<string, OpenAI>();
  const clientOf = (baseURL: string, apiKey: string): OpenAI => {
    const id = `${baseURL}\u0000${apiKey}`;
    let client = clients.get(id);
    if (!client) {
      if (clients.size >= MAX_CLIENTS) clients.clear();
      client = new OpenAI({ apiKey, baseURL, timeout: ctx.config.ai.timeoutMs, maxRetries: ctx.config.ai.maxRetries });
      clients.set(id, client);
    }
    return client;
  };

  return {
    async clientFor(tenantId: number, provider: AiProviderName): Promise<ProviderChoice> {
      const integrations = await tenantIntegrations(ctx, tenantId);
      if (provider === 'sippulse') {
        // Off: the key is not used, as if it were not stored.
        if (!(await isSecondAiProviderOn(ctx)) || !integrations.sippulse_ai_key) {
          return { ok: false, code: 'ai_key_not_found', message: 'no second AI provider key (or the feature_second_ai_provider setting is off)' };
        }
        const baseUrl = ctx.config.ai.sippulseBaseUrl;
        if (!baseUrl) return { ok: false, code: 'ai_access_error', message: 'SIPPULSE_BASE_URL is not set' };
        return { ok: true, client: clientOf(baseUrl, integrations.sippulse_ai_key), provider };
      }
      if (!integrations.openai_key) return { ok: false, code: 'ai_key_not_found', message: 'no OpenAI key in the tenant integrations' };
      return { ok: true, client: clientOf(ctx.config.ai.openaiBaseUrl, integrations.openai_key), provider };
    },
  };
}

export type AiProviders = ReturnType<typeof createAiProviders>;

/** A failed request as a catalogue code: a refused key, or anything else that kept the answer away. */
export function failureOf(error: unknown): { code: AiFailureCode; message: string } {
  if (error instanceof OpenAI.AuthenticationError) return { code: 'ai_key_invalid', message: error.message };
  return { code: 'ai_access_error', message: error instanceof Error ? error.message : String(error) };
}
