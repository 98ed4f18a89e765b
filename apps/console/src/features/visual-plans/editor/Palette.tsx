import { ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { blockDescription, blockEditors } from '@voxplan/blocks/editor/registry';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlockLook } from './block-look.tsx';
import { useEditorContext } from './editor-context.tsx';
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
export function BlockTypeList({ types, onAdd, draggable = true }: { types: readonly string[]; onAdd(type: string): void; draggable?: boolean }) {
  const { t } = useTranslation();
  return (
    <ScrollArea style={{ flex: 1 }} px={4}>
      {types.map((type) => (
        <PaletteItem key={type} type={type} onAdd={onAdd} draggable={draggable} />
      ))}
      {types.length === 0 && (
        <Text size="xs" c="dimmed" p="xs">
          {t('editor.palette.none')}
        </Text>
      )}
    </ScrollArea>
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
