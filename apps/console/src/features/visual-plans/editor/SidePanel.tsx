import { Button, Loader, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconFlag, IconPlayerPlay } from '@tabler/icons-react';
import type { PlanSettings } from '@voxplan/blocks/definitions';
import { blockDescription, dataWithGoal, goalNameLength, planLabelLength } from '@voxplan/blocks/editor/registry';
import { lazy, Suspense, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNodeDecoration } from './decorations.ts';
import { issueText } from './issue-text.ts';
import { useEditorContext } from './editor-context.tsx';
import type { GraphNode } from './graph-state.ts';

// The forms load just after the canvas, which is what the user waits for when opening a plan.
const BlockFormHost = lazy(() => import('./BlockFormHost.tsx').then((module) => ({ default: module.BlockFormHost })));
const PlanSettingsPanel = lazy(() => import('./PlanSettingsPanel.tsx').then((module) => ({ default: module.PlanSettingsPanel })));

/** The server's errors and warnings about a block, by the path inside its data. */
function useServerIssues(node: GraphNode): ReadonlyMap<string, string> {
  const context = useEditorContext();
  const { t } = useTranslation();
  const decoration = useNodeDecoration(context.decorations, node.id);
  // The block's name and data are read when its issues change, not at each character typed.
  const nodeRef = useRef(node);
  nodeRef.current = node;
  return useMemo(() => {
    const issues = new Map<string, string>();
    for (const issue of [...decoration.errors, ...decoration.warnings]) if (!issues.has(issue.path)) issues.set(issue.path, issueText(issue, nodeRef.current, context, t));
    return issues;
  }, [decoration, context, t]);
}

interface BlockPanelProps {
  node: GraphNode;
  variableNames: readonly string[];
  onChange(nodeId: string, data: Record<string, unknown>): void;
  onLabelChange(nodeId: string, label: string): void;
  onTestFrom(nodeId: string): void;
}

function BlockPanel({ node, variableNames, onChange, onLabelChange, onTestFrom }: BlockPanelProps) {
  const { t } = useTranslation();
  const { language, readOnly } = useEditorContext();
  const texts = blockDescription(node.type)?.texts[language];
  const issues = useServerIssues(node);
  const goal = typeof node.data.goal === 'string' ? node.data.goal : '';
  return (
    <Stack gap="sm" p="sm" data-testid="block-panel" data-node-id={node.id}>
      <div>
        <Title order={4}>{texts?.name ?? node.type}</Title>
        <Text size="xs" c="dimmed">
          {texts?.description}
        </Text>
        <Button mt={6} size="compact-xs" variant="light" leftSection={<IconPlayerPlay size={12} />} onClick={() => onTestFrom(node.id)} data-testid="test-from-block">
          {t('editor.testFromHere')}
        </Button>
      </div>
      <TextInput
        label={t('editor.blockName')}
        description={t('editor.blockNameHint', { type: texts?.name ?? node.type })}
        value={node.label ?? ''}
        maxLength={planLabelLength}
        onChange={(event) => onLabelChange(node.id, event.currentTarget.value)}
        data-testid="block-name"
      />
      <TextInput
        label={t('editor.goal')}
        description={t('editor.goalHint')}
        leftSection={<IconFlag size={14} aria-hidden />}
        value={goal}
        maxLength={goalNameLength}
        readOnly={readOnly}
        error={issues.get('goal')}
        onChange={(event) => onChange(node.id, dataWithGoal(node.data, event.currentTarget.value))}
        data-testid="block-goal"
      />
      <Suspense fallback={<Loader size="sm" aria-label={t('common.loading')} />}>
        {/* The goal is no field of the block's own form: kept through its changes. */}
        <BlockFormHost node={node} issues={issues} variableNames={variableNames} onChange={(data) => onChange(node.id, dataWithGoal(data, goal))} />
      </Suspense>
    </Stack>
  );
}

/** The selected block's form, or the plan's settings when no block is selected. */
export function SidePanel({
  node,
  selectedCount,
  settings,
  onNodeDataChange,
  onNodeLabelChange,
  onSettingsChange,
  onTestFrom,
  variableNames,
}: {
  node: GraphNode | undefined;
  selectedCount: number;
  settings: PlanSettings;
  onNodeDataChange(nodeId: string, data: Record<string, unknown>): void;
  onNodeLabelChange(nodeId: string, label: string): void;
  onSettingsChange(settings: PlanSettings, field: string): void;
  onTestFrom(nodeId: string): void;
  /** The variables the plan's blocks set, offered in template fields. */
  variableNames: readonly string[];
}) {
  const { t } = useTranslation();
  return (
    <ScrollArea style={{ flex: 1 }}>
      {node ? (
        <BlockPanel key={node.id} node={node} variableNames={variableNames} onChange={onNodeDataChange} onLabelChange={onNodeLabelChange} onTestFrom={onTestFrom} />
      ) : selectedCount > 1 ? (
        <Stack p="sm" gap="xs">
          <Title order={4}>{t('editor.selected', { count: selectedCount })}</Title>
          <Text size="sm" c="dimmed">
            {t('editor.selectedHint')}
          </Text>
        </Stack>
      ) : (
        <Suspense fallback={<Loader m="sm" size="sm" aria-label={t('common.loading')} />}>
          <PlanSettingsPanel settings={settings} onChange={onSettingsChange} />
        </Suspense>
      )}
    </ScrollArea>
  );
}
