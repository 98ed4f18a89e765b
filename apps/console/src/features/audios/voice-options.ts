import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAudioVoices } from './use-audios.ts';

/** espeak-ng's languages as select options: "Portuguese (Brazil) · pt-br". */
export function useLanguageOptions(): { value: string; label: string }[] {
  const voices = useAudioVoices();
  return useMemo(() => (voices.data?.languages ?? []).map(({ code, name }) => ({ value: code, label: `${name} · ${code}` })), [voices.data]);
}

/** espeak-ng's voice variants, grouped by gender. */
export function useVoiceOptions(): { group: string; items: { value: string; label: string }[] }[] {
  const { t } = useTranslation();
  const voices = useAudioVoices();
  return useMemo(() => {
    const all = voices.data?.voices ?? [];
    return (['female', 'male', 'unknown'] as const)
      .map((gender) => ({ group: t(`audios.genders.${gender}`), items: all.filter((voice) => voice.gender === gender).map(({ id, name }) => ({ value: id, label: name })) }))
      .filter((group) => group.items.length > 0);
  }, [voices.data, t]);
}
