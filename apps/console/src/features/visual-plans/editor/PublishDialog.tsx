import { Button, Group, List, Loader, Modal, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { PlanEdge } from '@voxplan/blocks/definitions';
import type { VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import type { RolloutSettings } from '../rollouts/rollout-api.ts';
import { defaultRolloutSettings, RolloutFields } from '../rollouts/RolloutFields.tsx';
import { blockTitle } from './block-look.tsx';
import { useEditorContext } from './editor-context.tsx';
import type { Graph, GraphNode } from './graph-state.ts';

/** A published version as the versions endpoint answers it, with its content. */
type PublishedContent = VisualPlanVersion & { nodes: GraphNode[]; edges: PlanEdge[] };

const linkKey = (edge: PlanEdge) => `${edge.source}\u0000${edge.source_exit}\u0000${edge.target}`;

/** What the draft changes in the published version: blocks added, removed or changed, lines added or removed. */
export function planChanges(published: { nodes: readonly GraphNode[]; edges: readonly PlanEdge[] }, draft: Graph) {
  const before = new Map(published.nodes.map((node) => [node.id, node]));
  const after = new Map(draft.nodes.map((node) => [node.id, node]));
  const beforeLinks = new Set(published.edges.map(linkKey));
  const afterLinks = new Set(draft.edges.map(linkKey));
  return {
    added: draft.nodes.filter((node) => !before.has(node.id)),
    removed: published.nodes.filter((node) => !after.has(node.id)),
    changed: draft.nodes.filter((node) => {
      const old = before.get(node.id);
      return old !== undefined && (old.type !== node.type || (old.label ?? '') !== (node.label ?? '') || JSON.stringify(old.data ?? {}) !== JSON.stringify(node.data));
    }),
    linesAdded: [...afterLinks].filter((key) => !beforeLinks.has(key)).length,
    linesRemoved: [...beforeLinks].filter((key) => !afterLinks.has(key)).length,
  };
}

/**
 * Publishing asks first, and says what the calls and chats will run differently from now on; what
 * is not saved yet is saved first (usePlanSaving's publish), and the dialog says so, so that no
 * separate save is needed before publishing.
 */
export function PublishDialog({
  graph,
  publishedVersion,
  unsaved,
  onConfirm,
  onClose,
}: {
  graph: Graph;
  publishedVersion: number | null;
  unsaved: boolean;
  /** With a rollout: the new version meets that share of sessions first (issue 41), the rest keep the published one. */
  onConfirm(rollout?: RolloutSettings): void;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const [rollout, setRollout] = useState<RolloutSettings | null>(null);
  const context = useEditorContext();
  const published = useQuery({
    queryKey: ['/visual-plans', 'versions', context.planId, publishedVersion],
    queryFn: ({ signal }) => api.get<PublishedContent>(`/visual-plans/${context.planId}/versions/${publishedVersion}`, { signal, tenantId: context.tenantId }),
    enabled: publishedVersion !== null,
  });
  const changes = publishedVersion === null ? undefined : published.data && planChanges(published.data, graph);
  const named = (nodes: readonly GraphNode[]) => nodes.map((node) => blockTitle(node, context)).join('; ');
  return (
    <Modal opened onClose={onClose} title={t(rollout ? 'rollouts.publishTitle' : 'editor.publishConfirm.title')} data-testid="publish-dialog">
      {publishedVersion === null ? (
        <Text size="sm">{t('editor.publishConfirm.first', { count: graph.nodes.length })}</Text>
      ) : !changes ? (
        <Loader size="sm" aria-label={t('common.loading')} />
      ) : (
        <>
          <Text size="sm" mb="xs">
            {t(rollout ? 'rollouts.changesSince' : 'editor.publishConfirm.since', { version: publishedVersion })}
          </Text>
          <List size="sm" spacing={4} data-testid="publish-changes">
            {changes.added.length > 0 && <List.Item>{t('editor.publishConfirm.added', { count: changes.added.length, names: named(changes.added) })}</List.Item>}
            {changes.removed.length > 0 && <List.Item>{t('editor.publishConfirm.removed', { count: changes.removed.length, names: named(changes.removed) })}</List.Item>}
            {changes.changed.length > 0 && <List.Item>{t('editor.publishConfirm.changed', { count: changes.changed.length, names: named(changes.changed) })}</List.Item>}
            {changes.linesAdded > 0 && <List.Item>{t('editor.publishConfirm.linesAdded', { count: changes.linesAdded })}</List.Item>}
            {changes.linesRemoved > 0 && <List.Item>{t('editor.publishConfirm.linesRemoved', { count: changes.linesRemoved })}</List.Item>}
            {changes.added.length + changes.removed.length + changes.changed.length + changes.linesAdded + changes.linesRemoved === 0 && (
              <List.Item>{t('editor.publishConfirm.none')}</List.Item>
            )}
          </List>
        </>
      )}
      {rollout && (
        <>
          <Text size="sm" mt="md" mb="xs">
            {t('rollouts.publishIntro', { version: publishedVersion })}
          </Text>
          <RolloutFields value={rollout} onChange={setRollout} />
        </>
      )}
      {unsaved && (
        <Text size="sm" mt="xs" c="dimmed" data-testid="publish-saves-first">
          {t('editor.publishConfirm.savesFirst')}
        </Text>
      )}
      <Group justify="flex-end" mt="md" gap="xs">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        {/* A share needs a version the rest keep: a plan never published publishes to everyone. */}
        {publishedVersion !== null && !rollout && (
          <Button variant="light" onClick={() => setRollout(defaultRolloutSettings)} data-testid="publish-to-share">
            {t('rollouts.publishToShare')}
          </Button>
        )}
        {rollout ? (
          <Button onClick={() => onConfirm(rollout)} data-testid="confirm-publish-share">
            {t('rollouts.publishShare', { share: rollout.share })}
          </Button>
        ) : (
          <Button onClick={() => onConfirm()} data-testid="confirm-publish">
            {t('editor.publish')}
          </Button>
        )}
      </Group>
    </Modal>
  );
}
