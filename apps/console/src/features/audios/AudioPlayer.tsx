import { ActionIcon, Text, Tooltip } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import type { Audio } from '@voxplan/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { showError } from '../../lib/errors.ts';
import { AUDIOS } from './use-audios.ts';

/**
 * A row's player. The sound is fetched with the session's token only when asked for (an <audio>
 * element cannot send it), then played from an object URL, which also lets the player seek.
 */
export function AudioPlayer({ audio }: { audio: Audio }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => () => {
    if (url) URL.revokeObjectURL(url);
  }, [url]);

  if (audio.status !== 'ready') return <Text size="sm" c="dimmed">—</Text>;

  if (url) {
    return <audio controls autoPlay src={url} aria-label={t('audios.playerOf', { name: audio.name })} data-testid="audio-player" style={{ height: 32, maxWidth: 260 }} />;
  }

  const load = async () => {
    setLoading(true);
    try {
      setUrl(URL.createObjectURL(await api.blob(`${AUDIOS}/${audio.id}/file`)));
    } catch (error) {
      showError(error, t);
    } finally {
      setLoading(false);
    }
  };

  return (
    <Tooltip label={t('audios.play')}>
      <ActionIcon variant="light" aria-label={t('audios.playNamed', { name: audio.name })} loading={loading} onClick={() => void load()} data-testid="audio-play">
        <IconPlayerPlay size={16} />
      </ActionIcon>
    </Tooltip>
  );
}
