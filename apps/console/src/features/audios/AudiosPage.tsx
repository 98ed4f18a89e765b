import { Badge, Button, Group, Progress, Text } from '@mantine/core';
import { IconMicrophone, IconUpload } from '@tabler/icons-react';
import { type Audio, audioSources, audioStatuses } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration } from '../../lib/format.ts';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { AudioPlayer } from './AudioPlayer.tsx';
import { AudioRenameModal } from './AudioRenameModal.tsx';
import { AudioTtsModal } from './AudioTtsModal.tsx';
import { AudioUploadModal } from './AudioUploadModal.tsx';
import { AUDIOS, useLiveAudio } from './use-audios.ts';

// Dot badges: the text keeps the page's colour, so it reads on striped and hovered rows in both schemes.
const statusColors = { generating: 'indigo', ready: 'teal', failed: 'red' } as const;

/** Ready or failed as a badge; while generating, the progress, followed until it is done. */
function StatusCell({ audio }: { audio: Audio }) {
  const { t } = useTranslation();
  const live = useLiveAudio(audio);
  if (live.status === 'generating') {
    return (
      <Group gap={6} wrap="nowrap" miw={120}>
        <Progress value={live.progress} animated w={70} aria-label={t('audios.progress')} />
        <Text size="xs">{live.progress}%</Text>
      </Group>
    );
  }
  return (
    <Badge variant="dot" color={statusColors[live.status]} data-testid="audio-status">
      {t(`audios.statuses.${live.status}`)}
    </Badge>
  );
}

const sourceOptions = audioSources.map((value) => ({ value, labelKey: `audios.sources.${value}` }));

function SourceCell({ audio }: { audio: Audio }) {
  const { t } = useTranslation();
  return <Text size="sm">{t(`audios.sources.${audio.source}`)}</Text>;
}

const columns: Column<Audio>[] = [
  { field: 'name', labelKey: 'audios.name', type: 'text' },
  {
    field: 'source',
    labelKey: 'audios.source',
    type: 'enum',
    options: sourceOptions,
    // Plain text: a badge would be cut short beside the player.
    render: (audio) => <SourceCell audio={audio} />,
  },
  { field: 'language', labelKey: 'audios.language', type: 'text', render: (audio) => audio.language || '—' },
  { field: 'duration_ms', labelKey: 'audios.duration', type: 'number', filterable: false, render: (audio) => <span data-testid="audio-duration">{formatDuration(audio.duration_ms)}</span> },
  { field: 'id', labelKey: 'audios.player', type: 'number', sortable: false, filterable: false, render: (audio) => <AudioPlayer audio={audio} /> },
  { field: 'status', labelKey: 'audios.status', type: 'enum', options: audioStatuses.map((value) => ({ value, labelKey: `audios.statuses.${value}` })), render: (audio) => <StatusCell audio={audio} /> },
  { field: 'created_time', labelKey: 'audios.createdTime', type: 'date' },
];

const searchFields = ['name', 'language', 'text'];

/** Audios: uploaded or spoken from text, played in the row, renamed and removed. */
export default function AudiosPage() {
  const { t } = useTranslation();
  const [modal, setModal] = useState<'upload' | 'tts' | null>(null);
  const [renaming, setRenaming] = useState<Audio | null>(null);
  const removeRow = useRemoveRow(AUDIOS);

  return (
    <>
      <DataTable<Audio>
        tableId="audios"
        resource={AUDIOS}
        titleKey="nav.audios"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Group gap="xs">
            <Button variant="default" leftSection={<IconMicrophone size={16} />} onClick={() => setModal('tts')} data-testid="audio-tts">
              {t('audios.generate')}
            </Button>
            <Button leftSection={<IconUpload size={16} />} onClick={() => setModal('upload')} data-testid="audio-upload">
              {t('audios.upload')}
            </Button>
          </Group>
        }
        rowActions={(audio) => (
          <EditRemoveActions testIdPrefix="audio" editLabel={t('audios.rename')} onEdit={() => setRenaming(audio)} onRemove={() => removeRow(audio.id)} />
        )}
      />
      {modal === 'upload' && <AudioUploadModal opened onClose={() => setModal(null)} />}
      {modal === 'tts' && <AudioTtsModal opened onClose={() => setModal(null)} />}
      {renaming && <AudioRenameModal audio={renaming} onClose={() => setRenaming(null)} />}
    </>
  );
}
