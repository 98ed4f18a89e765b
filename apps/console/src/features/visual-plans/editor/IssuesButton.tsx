import { Badge, Button, NavLink, Popover, ScrollArea } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { PlanIssue } from './decorations.ts';
import { blockTitle, lookOfType } from './block-look.tsx';
import { issueText } from './issue-text.ts';
import { useEditorContext } from './editor-context.tsx';
import type { Graph } from './graph-state.ts';

/** The server's errors and warnings about the plan, listed; each takes the user to its block. */
export function IssuesButton({ onFocusNode, nodes }: { onFocusNode(nodeId: string): void; nodes: Graph['nodes'] }) {
  const { t } = useTranslation();
  const { decorations } = useEditorContext();
  const issues = useSyncExternalStore(decorations.subscribe, () => decorations.getIssues());
  const [opened, setOpened] = useState(false);
  const total = issues.errors.length + issues.warnings.length;
  if (total === 0) return null;
  return (
    // The focus goes into the list, so that Escape closes it and the keyboard walks its issues; it returns to the button after.
    // On a phone the list takes the screen's width less a margin: at 420 px it ran off a 390-px screen.
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width="min(420px, 96vw)" withinPortal trapFocus returnFocus>
      <Popover.Target>
        <Button
          variant="light"
          color={issues.errors.length > 0 ? 'red' : 'yellow'}
          leftSection={<IconAlertTriangle size={16} />}
          onClick={() => setOpened((open) => !open)}
          data-testid="editor-issues"
        >
          {t('editor.issues.count', { count: total })}
        </Button>
      </Popover.Target>
      <Popover.Dropdown p={4}>
        {/* Its own component, which the dropdown renders only while it shows: a plan of a thousand blocks has
            hundreds of issues to name, and this button renders at every keystroke. */}
        <IssueList
          issues={issues}
          nodes={nodes}
          onPick={(nodeId) => {
            onFocusNode(nodeId);
            setOpened(false);
          }}
        />
      </Popover.Dropdown>
    </Popover>
  );
}

function IssueList({ issues, nodes, onPick }: { issues: { errors: readonly PlanIssue[]; warnings: readonly PlanIssue[] }; nodes: Graph['nodes']; onPick(nodeId: string): void }) {
  const { t } = useTranslation();
  const context = useEditorContext();
  // Named as the person sees the block and its exit, never by ids or the document's paths.
  const describe = (issue: PlanIssue): string => {
    const node = issue.node_id === undefined ? undefined : nodes.find((candidate) => candidate.id === issue.node_id);
    if (!node) return issue.message;
    const block = blockTitle(node, context);
    if (issue.path.startsWith('exits.')) {
      const exit = issue.path.slice('exits.'.length);
      return t('editor.issues.atExit', { block, exit: lookOfType(node.type).exitLabel(exit, node.data, context) ?? exit });
    }
    return issue.code === 'unreachable' ? block : `${block}: ${issueText(issue, node, context, t)}`;
  };
  const item = (issue: PlanIssue, index: number, severity: 'error' | 'warning') => (
    <NavLink
      key={`${severity}-${index}`}
      leftSection={<Badge size="xs" color={severity === 'error' ? 'red' : 'yellow'}>{t(`editor.issues.${severity}`)}</Badge>}
      label={t(`editor.issues.codes.${issue.code}`, { defaultValue: issue.code })}
      description={describe(issue)}
      disabled={!issue.node_id}
      onClick={() => issue.node_id && onPick(issue.node_id)}
      data-testid={`issue-${severity}`}
    />
  );
  return (
    <ScrollArea.Autosize mah={400}>
      {issues.errors.map((issue, index) => item(issue, index, 'error'))}
      {issues.warnings.map((issue, index) => item(issue, index, 'warning'))}
    </ScrollArea.Autosize>
  );
}
