import { JsonInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useEditorContext } from './editor-context.tsx';
import type { GraphNode } from './graph-state.ts';

/** The selected block's form. */
export function BlockFormHost({ node, issues, onChange }: { node: GraphNode; issues: ReadonlyMap<string, string>; onChange(data: Record<string, unknown>): void }) {
  const { t } = useTranslation();
  const { readOnly } = useEditorContext();
  const [text, setText] = useState(() => JSON.stringify(node.data, null, 2));
  return (
    <Stack gap="xs">
      <JsonInput
        label={t('editor.blockData')}
        autosize
        minRows={6}
        value={text}
        readOnly={readOnly}
        onChange={(value) => {
          setText(value);
          try {
            const parsed: unknown = JSON.parse(value);
            if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) onChange(parsed as Record<string, unknown>);
          } catch {
            // Half-typed JSON is left for the user to finish.
          }
        }}
        data-testid="block-data"
      />
      {[...issues].map(([path, message]) => (
        <Text key={path} size="xs" c="red">
          {path}: {message}
        </Text>
      ))}
    </Stack>
  );
}
