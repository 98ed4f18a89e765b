import { Modal, NavLink, ScrollArea, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { blockDescription } from '@voxplan/blocks/editor/registry';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { blockTitle } from './block-look.tsx';
import { type EditorContextValue, useEditorContext } from './editor-context.tsx';
import type { Graph } from './graph-state.ts';

/** Blocks show this many matches at most; a longer list would not be read. */
const shownMatches = 50;

/**
 * What a block is found by besides its title: the texts of its settings, and the names of the
 * records it points to ("Sales" finds the block that transfers to the Sales destination).
 */
function searchText(type: string, data: Record<string, unknown>, context: EditorContextValue): string {
  const words: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') words.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) walk(item);
  };
  walk(data);
  for (const reference of blockDescription(type)?.references ?? []) {
    const id = data[reference.path];
    words.push(context.referenceName(reference.kind, typeof id === 'number' ? id : undefined) ?? '');
  }
  return words.filter((word) => word.trim() !== '').join(' · ');
}

/** Finds a block by its name or title, its settings' texts or the names of what it points to, and takes the view to it. */
export function FindBlockDialog({ opened, onClose, graph, onFocusNode }: { opened: boolean; onClose(): void; graph: Graph; onFocusNode(nodeId: string): void }) {
  const { t } = useTranslation();
  const context = useEditorContext();
  const [query, setQuery] = useState('');
  const matches = useMemo(() => {
    if (!opened) return [];
    const wanted = query.trim().toLocaleLowerCase();
    return graph.nodes
      .map((node) => ({
        node,
        name: blockTitle(node, context),
        // A named block is still found by what it is ("Play message · Welcome to…"), shown under its name.
        text: [node.label ? blockTitle({ type: node.type, data: node.data }, context) : '', searchText(node.type, node.data, context)].filter(Boolean).join(' · '),
      }))
      .filter(({ name, text }) => !wanted || `${name} ${text}`.toLocaleLowerCase().includes(wanted))
      .slice(0, shownMatches);
  }, [context, graph.nodes, opened, query]);
  return (
    <Modal opened={opened} onClose={onClose} title={t('editor.findTitle')} data-testid="find-dialog">
      <TextInput
        leftSection={<IconSearch size={16} />}
        placeholder={t('editor.findPlaceholder')}
        aria-label={t('editor.findPlaceholder')}
        value={query}
        onChange={(event) => setQuery(event.currentTarget.value)}
        data-autofocus
        data-testid="find-input"
        onKeyDown={(event) => {
          if (event.key === 'Enter' && matches[0]) {
            onFocusNode(matches[0].node.id);
            onClose();
          }
        }}
      />
      <ScrollArea.Autosize mah={360} mt="sm">
        {matches.map(({ node, name, text }) => (
          <NavLink
            key={node.id}
            label={name}
            description={text.slice(0, 120)}
            onClick={() => {
              onFocusNode(node.id);
              onClose();
            }}
            data-testid="find-result"
          />
        ))}
        {matches.length === 0 && (
          <Text c="dimmed" size="sm">
            {t('editor.findNone')}
          </Text>
        )}
      </ScrollArea.Autosize>
    </Modal>
  );
}
