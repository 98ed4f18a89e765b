import { type NumberProvider, numberProviders } from '@voxplan/contracts';

export const providerLabelKey = (provider: NumberProvider): string => `numbers.providers.${provider}`;

export const providerOptions = numberProviders.map((value) => ({ value, labelKey: providerLabelKey(value) }));
