import { type Audio, type AudioLimits, type AudioVoices } from '@voxplan/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';

export const AUDIOS = '/audios';
/** How often a generating audio is asked for its progress. */
const PROGRESS_POLL_MS = 500;

/** espeak-ng's languages and voices (they change only when the server's package does), and the tenant's AI voices. */
export function useAudioVoices() {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: ['audio-voices', tenantId],
    queryFn: ({ signal }) => api.get<AudioVoices>(`${AUDIOS}/voices`, { signal }),
    staleTime: Infinity,
  });
}

/** The upload limit, asked anew whenever a form opens: administrators change it without a restart. */
export function useAudioLimits() {
  return useQuery({
    queryKey: ['audio-limits'],
    queryFn: ({ signal }) => api.get<AudioLimits>(`${AUDIOS}/limits`, { signal }),
    staleTime: 0,
  });
}

/**
 * The audio as it is now: while it is generating it is asked for again every half second, and
 * once it is done every list of audios is refreshed.
 */
export function useLiveAudio(audio: Audio): Audio {
  const { tenantId } = useAuth();
  const queryClient = useQueryClient();
  const live = useQuery({
    queryKey: [AUDIOS, tenantId, 'one', audio.id],
    queryFn: ({ signal }) => api.get<Audio>(`${AUDIOS}/${audio.id}`, { signal }),
    enabled: audio.status === 'generating',
    initialData: audio,
    refetchInterval: (query) => (query.state.data?.status === 'generating' ? PROGRESS_POLL_MS : false),
  });
  const current = audio.status === 'generating' ? live.data : audio;
  const finished = audio.status === 'generating' && current.status !== 'generating';
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: [AUDIOS, tenantId, 'list'] });
  }, [finished, queryClient, tenantId]);
  return current;
}
