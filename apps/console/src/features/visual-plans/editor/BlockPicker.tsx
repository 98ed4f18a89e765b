import { Paper, Text, TextInput } from '@mantine/core';
import { IconMessage, IconSearch } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import classes from './editor.module.css';
import { BlockTypeList, type ReadyBlock, ReadyBlockList, useBlockTypesMatching, useReadyBlocks } from './Palette.tsx';

/** Where the picker opened, in pixels from the canvas's top-left corner. */
export interface PickerSpot {
  left: number;
  top: number;
}

const pickerWidth = 260;
const pickerHeight = 320;

/**
 * The block list offered where a line was dropped on empty canvas, or beside an exit's "+": the
 * chosen block is added there, already connected to the exit (PlanEditor). The tenant's schedules,
 * destinations and audios come as ready blocks ("Destination · Sales"): above the types before any
 * search (a few, in view at once), below them once the user searches, so that typing a block's
 * name still finds that block first. What matches no block type nor ready block is taken for what the caller
 * should hear: "Say “…”" comes first and adds a message block saying it, so a message costs its
 * sentence and Enter instead of a pick and a field. Enter takes the first entry shown, Escape or a
 * click elsewhere closes the picker.
 */
export function BlockPicker({
  spot,
  bounds,
  onPick,
  onClose,
}: {
  spot: PickerSpot;
  bounds: { width: number; height: number };
  /** A block type, with the data of a ready block. */
  onPick(type: string, data?: Record<string, unknown>): void;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const shown = useBlockTypesMatching(query);
  const ready = useReadyBlocks(query);
  const searched = query.trim() !== '';
  const pickReady = (block: ReadyBlock) => onPick(block.type, block.data);
  const readyList = ready.length > 0 ? <ReadyBlockList blocks={ready} onAdd={pickReady} /> : undefined;
  const sentence = query.trim();
  const say = sentence !== '' && shown.length === 0 && ready.length === 0 ? () => onPick('play_message', { voice_text: sentence }) : undefined;
  const sayEntry = say && (
    <button type="button" className={classes.paletteItem} style={{ cursor: 'pointer', alignItems: 'center' }} onClick={say} title={t('editor.picker.sayHint')} data-testid="picker-say">
      <IconMessage size={16} style={{ flex: 'none' }} aria-hidden />
      <Text size="sm" component="span" truncate>
        {t('editor.picker.say', { text: sentence })}
      </Text>
    </button>
  );
  const first = (): void => {
    if (say) return say();
    const readyFirst = searched ? undefined : ready[0];
    if (readyFirst) pickReady(readyFirst);
    else if (shown[0]) onPick(shown[0]);
    else if (ready[0]) pickReady(ready[0]);
  };
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const outside = (event: PointerEvent) => {
      if (ref.current && !ref.current.contains(event.target as Node)) onClose();
    };
    // Listened to from the next event on: the pointer's release that opened the picker is not a click outside.
    const timer = setTimeout(() => document.addEventListener('pointerdown', outside), 0);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('pointerdown', outside);
    };
  }, [onClose]);
  // Kept inside the canvas: a picker opened near its right or bottom edge opens leftwards or upwards.
  const left = Math.max(4, Math.min(spot.left, bounds.width - pickerWidth - 4));
  const top = Math.max(4, Math.min(spot.top, bounds.height - pickerHeight - 4));
  return (
    <Paper
      ref={ref}
      shadow="md"
      withBorder
      p={4}
      style={{ position: 'absolute', left, top, width: pickerWidth, height: pickerHeight, zIndex: 10, display: 'flex', flexDirection: 'column' }}
      role="dialog"
      aria-label={t('editor.picker.title')}
      data-testid="block-picker"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <TextInput
        size="xs"
        m={4}
        leftSection={<IconSearch size={14} />}
        placeholder={t('editor.palette.search')}
        aria-label={t('editor.palette.search')}
        value={query}
        onChange={(event) => setQuery(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') first();
        }}
        autoFocus
        data-testid="picker-search"
      />
      <BlockTypeList types={shown} onAdd={(type) => onPick(type)} draggable={false} {...(searched ? { before: sayEntry, after: readyList } : { before: readyList })} />
    </Paper>
  );
}
