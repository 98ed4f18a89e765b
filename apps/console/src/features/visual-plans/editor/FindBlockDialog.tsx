import { Modal, NavLink, ScrollArea, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { blockDescription } from '@voxplan/blocks/editor/registry';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useEditorContext } from './editor-context.tsx';
import type { Graph } from './graph-state.ts';

/** Blocks show this many matches at most; a longer list would not be read. */
const shownMatches = 50;

/** Finds a block by its type's name, its id or any text of its settings, and takes the view to it. */
export function FindBlockDialog({ opened, onClose, graph, onFocusNode }: { opened: boolean; onClose(): void; graph: Graph; onFocusNode(nodeId: string): void }) {
  const { t } = useTranslation();
  const { language } = useEditorContext();
  const [query, setQuery] = useState('');
  const matches = useMemo(() => {
    if (!opened) return [];
    const wanted = query.trim().toLocaleLowerCase();
    return graph.nodes
      .map((node) => ({ node, name: blockDescription(node.type)?.texts[language].name ?? node.type, text: JSON.stringify(node.data) }))
      .filter(({ node, name, text }) => !wanted || `${name} ${node.id} ${text}`.toLocaleLowerCase().includes(wanted))
      .slice(0, shownMatches);
  }, [graph.nodes, language, opened, query]);
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
            description={text.length > 2 ? text.slice(0, 120) : node.id}
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
