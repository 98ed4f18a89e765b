import { ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { blockDescription, blockEditors } from '@voxplan/blocks/editor/registry';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlockLook } from './block-look.tsx';
import { useEditorContext, useReferenceList } from './editor-context.tsx';
import classes from './editor.module.css';

/** The drag payload's type: a block type dropped on the canvas. */
export const blockDragType = 'application/x-voxplan-block';

/** Every block but the start one: a plan has exactly one, and it comes with the plan. */
const paletteTypes = blockEditors.map((editor) => editor.type).filter((type) => type !== 'start');

function PaletteItem({ type, onAdd, draggable = true }: { type: string; onAdd(type: string): void; draggable?: boolean }) {
  const { t } = useTranslation();
  const { language } = useEditorContext();
  const look = useBlockLook(type);
  const texts = blockDescription(type)!.texts[language];
  const Icon = look.icon;
  return (
    <button
      type="button"
      className={classes.paletteItem}
      draggable={draggable}
      onDragStart={(event) => {
        event.dataTransfer.setData(blockDragType, type);
        event.dataTransfer.effectAllowed = 'copy';
      }}
      onClick={() => onAdd(type)}
      title={draggable ? t('editor.palette.addHint') : undefined}
      data-testid={draggable ? `palette-${type}` : `picker-${type}`}
    >
      <span style={{ color: `var(--mantine-color-${look.color}-filled)`, paddingTop: 2 }}>
        <Icon size={18} />
      </span>
      <span>
        <Text size="sm" fw={500} component="span" display="block">
          {texts.name}
        </Text>
        <Text size="xs" c="dimmed" component="span" display="block" lineClamp={2}>
          {texts.description}
        </Text>
      </span>
    </button>
  );
}

/** The block types found, to add one: dragged onto the canvas from the palette, or picked where a line ends (BlockPicker). */
export function BlockTypeList({
  types,
  onAdd,
  draggable = true,
  before,
  after,
}: {
  types: readonly string[];
  onAdd(type: string): void;
  draggable?: boolean;
  /** Ready blocks shown above or below the types, in the same scrolling list. */
  before?: ReactNode;
  after?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <ScrollArea style={{ flex: 1 }} px={4}>
      {before}
      {types.map((type) => (
        <PaletteItem key={type} type={type} onAdd={onAdd} draggable={draggable} />
      ))}
      {after}
      {types.length === 0 && !before && !after && (
        <Text size="xs" c="dimmed" p="xs">
          {t('editor.palette.none')}
        </Text>
      )}
    </ScrollArea>
  );
}

/**
 * A block already pointing at one of the tenant's named records: "Destination · Sales" is the
 * destination block with Sales chosen, one pick instead of adding the block then choosing in its form.
 */
export interface ReadyBlock {
  type: string;
  data: Record<string, unknown>;
  /** The record's name, as the tenant named it. */
  name: string;
}

/** With nothing searched, the picker shows this many ready blocks above the block types; a search finds all. */
const readyShownUnsearched = 6;

/**
 * The tenant's schedules, destinations and audios as ready blocks, for the search (by the record's
 * name or the block's): the blocks whose whole point is the record they name.
 */
export function useReadyBlocks(query: string): readonly ReadyBlock[] {
  const { language, tenantId } = useEditorContext();
  // The same lists the blocks' forms and names read (cached once per tenant by the editor).
  const dateRanges = useReferenceList('date_range', tenantId);
  const destinations = useReferenceList('destination', tenantId);
  const audios = useReferenceList('audio', tenantId);
  return useMemo(() => {
    const all: ReadyBlock[] = [
      ...(dateRanges.data ?? []).map((option) => ({ type: 'date_range', data: { date_range_id: option.value }, name: option.label })),
      ...(destinations.data ?? []).map((option) => ({ type: 'destination', data: { destination_id: option.value }, name: option.label })),
      // An audio plays instead of the spoken text.
      ...(audios.data ?? []).map((option) => ({ type: 'play_message', data: { text_to_speech: false, audio_id: option.value }, name: option.label })),
    ];
    const wanted = query.trim().toLocaleLowerCase();
    if (!wanted) return all.slice(0, readyShownUnsearched);
    return all.filter((ready) => `${blockDescription(ready.type)!.texts[language].name} ${ready.name}`.toLocaleLowerCase().includes(wanted));
  }, [audios.data, dateRanges.data, destinations.data, language, query]);
}

/** A ready block, on one line: "Destination · Sales". */
function ReadyItem({ ready, onAdd }: { ready: ReadyBlock; onAdd(ready: ReadyBlock): void }) {
  const { language } = useEditorContext();
  const look = useBlockLook(ready.type);
  const Icon = look.icon;
  return (
    <button type="button" className={classes.paletteItem} style={{ cursor: 'pointer', alignItems: 'center' }} onClick={() => onAdd(ready)} data-testid={`ready-${ready.type}-${ready.name}`}>
      <span style={{ color: `var(--mantine-color-${look.color}-filled)`, display: 'flex' }}>
        <Icon size={16} />
      </span>
      <Text size="sm" component="span" truncate>
        {blockDescription(ready.type)!.texts[language].name} · <b>{ready.name}</b>
      </Text>
    </button>
  );
}

/** The ready blocks found, under their own heading. */
export function ReadyBlockList({ blocks, onAdd }: { blocks: readonly ReadyBlock[]; onAdd(ready: ReadyBlock): void }) {
  const { t } = useTranslation();
  if (blocks.length === 0) return null;
  return (
    <div role="group" aria-label={t('editor.picker.ready')} data-testid="ready-blocks">
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" px={8} pt={4}>
        {t('editor.picker.ready')}
      </Text>
      {blocks.map((ready) => (
        <ReadyItem key={`${ready.type}:${ready.name}:${JSON.stringify(ready.data)}`} ready={ready} onAdd={onAdd} />
      ))}
    </div>
  );
}

/** The block types a search finds by name or description (all of them for an empty search). */
export function useBlockTypesMatching(query: string): readonly string[] {
  const { language } = useEditorContext();
  return useMemo(() => {
    const wanted = query.trim().toLocaleLowerCase();
    if (!wanted) return paletteTypes;
    return paletteTypes.filter((type) => {
      const texts = blockDescription(type)!.texts[language];
      return `${texts.name} ${texts.description} ${type}`.toLocaleLowerCase().includes(wanted);
    });
  }, [query, language]);
}

/** The blocks to add: search by name or description, click to add at the centre, or drag onto the canvas. */
export function Palette({ onAdd }: { onAdd(type: string): void }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const shown = useBlockTypesMatching(query);
  return (
    <aside className={classes.palette} aria-label={t('editor.palette.title')}>
      <Stack gap={4} p="xs">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed">
          {t('editor.palette.title')}
        </Text>
        <TextInput
          size="xs"
          leftSection={<IconSearch size={14} />}
          placeholder={t('editor.palette.search')}
          aria-label={t('editor.palette.search')}
          value={query}
          onChange={(event) => setQuery(event.currentTarget.value)}
          data-testid="palette-search"
        />
      </Stack>
      <BlockTypeList types={shown} onAdd={onAdd} />
    </aside>
  );
}
