import { Select, type SelectProps } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAudioVoices } from './use-audios.ts';

/** A select of espeak-ng's languages ("Portuguese (Brazil) · pt-br"), searchable; '' is no language. */
export function LanguageSelect({ value, onChange, ...props }: Omit<SelectProps, 'data' | 'value' | 'onChange'> & { value: string; onChange(value: string): void }) {
  const { t } = useTranslation();
  const voices = useAudioVoices();
  const data = useMemo(() => (voices.data?.languages ?? []).map(({ code, name }) => ({ value: code, label: `${name} · ${code}` })), [voices.data]);
  return (
    <Select
      label={t('audios.language')}
      searchable
      nothingFoundMessage={t('audios.noLanguage')}
      {...props}
      data={data}
      value={value || null}
      onChange={(next) => onChange(next ?? '')}
    />
  );
}

/** espeak-ng's voice variants, grouped by gender, then the AI voices the tenant's AI key offers. */
export function useVoiceOptions(): { group: string; items: { value: string; label: string }[] }[] {
  const { t } = useTranslation();
  const voices = useAudioVoices();
  return useMemo(() => {
    const all = voices.data?.voices ?? [];
    const ai = { group: t('audios.aiVoices'), items: (voices.data?.ai_voices ?? []).map(({ id, name }) => ({ value: id, label: name })) };
    return [
      ...(['female', 'male', 'unknown'] as const).map((gender) => ({
        group: t(`audios.genders.${gender}`),
        items: all.filter((voice) => voice.gender === gender).map(({ id, name }) => ({ value: id, label: name })),
      })),
      ai,
    ].filter((group) => group.items.length > 0);
  }, [voices.data, t]);
}
