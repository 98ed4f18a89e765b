import type { Features } from '@voxplan/contracts';
import { isFeatureOn } from '@voxplan/contracts/features';
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api } from './api/client.ts';

/**
 * The feature settings (`GET /features`), readable by every user. Under the configurations' key,
 * so that a setting saved on the settings screen is read again.
 */
export function useFeatures(options: { enabled?: boolean } = {}): { isFetched: boolean; isOn(name: string): boolean } {
  const features = useQuery({
    queryKey: ['/configurations', 'features'],
    queryFn: ({ signal }) => api.get<Features>('/features', { signal }),
    enabled: options.enabled ?? true,
  });
  // Off until known: a choice that depends on a feature is not offered meanwhile.
  const isOn = useCallback((name: string) => isFeatureOn(features.data, name), [features.data]);
  return { isFetched: features.isFetched, isOn };
}
