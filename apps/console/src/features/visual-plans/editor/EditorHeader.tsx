import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { EditorToolbar, type EditorToolbarProps } from './EditorToolbar.tsx';
import { IssuesButton } from './IssuesButton.tsx';

interface Props extends EditorToolbarProps {
  name: string;
  testing: boolean;
  onToggleTest(): void;
}

/** The editor's top row: the plan's name, its version, published version and save state, then its issues, the test and the toolbar. */
export function EditorHeader({ name, testing, onToggleTest, ...toolbar }: Props) {
  const { t } = useTranslation();
  const { saving, readOnly, dirty } = toolbar;
  return (
    // The status row sets the width of the name's column: the name gives way (truncated), the
    // status is never cut ("Alterações não salvas"); without the room, the buttons go below.
    <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
      <Stack gap={2} style={{ flex: '1 1 auto' }}>
        <Title order={4} style={{ width: 0, minWidth: '100%', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} data-testid="editor-plan-name">
          {name}
        </Title>
        <Group gap={6} wrap="nowrap">
          <Badge size="sm" variant="light" style={{ flexShrink: 0 }} data-testid="editor-version">
            {t('editor.version', { version: saving.baseVersion })}
          </Badge>
          {saving.publishedVersion !== null ? (
            <Badge size="sm" variant="light" color="teal" style={{ flexShrink: 0 }} data-testid="editor-published">
              {t('editor.publishedVersion', { version: saving.publishedVersion })}
            </Badge>
          ) : (
            <Badge size="sm" variant="light" color="gray" style={{ flexShrink: 0 }} data-testid="editor-published">
              {t('editor.neverPublished')}
            </Badge>
          )}
          {readOnly && (
            <Badge size="sm" color="gray" style={{ flexShrink: 0 }} data-testid="editor-read-only">
              {t('editor.readOnly')}
            </Badge>
          )}
          {!readOnly && (
            <Text size="xs" c={dirty ? 'orange' : 'dimmed'} style={{ whiteSpace: 'nowrap', flexShrink: 0 }} data-testid="editor-dirty">
              {dirty ? t('editor.unsaved') : t('editor.saved')}
            </Text>
          )}
        </Group>
      </Stack>
      <Group gap="xs" wrap="nowrap">
        <IssuesButton onFocusNode={toolbar.onFocusNode} nodes={toolbar.graph.nodes} />
        <Button variant={testing ? 'filled' : 'light'} leftSection={<IconPlayerPlay size={16} />} onClick={onToggleTest} data-testid="editor-test">
          {t('editor.test')}
        </Button>
        <EditorToolbar {...toolbar} />
      </Group>
    </Group>
  );
}
