import { Paper, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BlockTypeList, useBlockTypesMatching } from './Palette.tsx';

/** Where the picker opened, in pixels from the canvas's top-left corner. */
export interface PickerSpot {
  left: number;
  top: number;
}

const pickerWidth = 260;
const pickerHeight = 320;

/**
 * The block list offered where a line was dropped on empty canvas, or beside an exit's "+": the
 * chosen block is added there, already connected to the exit (PlanEditor). Enter takes the first
 * match, Escape or a click elsewhere closes it.
 */
export function BlockPicker({ spot, bounds, onPick, onClose }: { spot: PickerSpot; bounds: { width: number; height: number }; onPick(type: string): void; onClose(): void }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const shown = useBlockTypesMatching(query);
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
          if (event.key === 'Enter' && shown[0]) onPick(shown[0]);
        }}
        autoFocus
        data-testid="picker-search"
      />
      <BlockTypeList types={shown} onAdd={onPick} draggable={false} />
    </Paper>
  );
}
