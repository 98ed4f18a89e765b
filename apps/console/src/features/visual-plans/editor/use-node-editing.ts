import type { PlanSettings } from '@voxplan/blocks/definitions';
import { useCallback } from 'react';
import type { SetHistory } from './editor-selection.ts';
import { commit, withChatFollowingVoice } from './graph-state.ts';

/** Edits from the side panel: a block's data and name, the plan's settings; typing in one field is one undo step. */
export function useNodeEditing(setHistory: SetHistory) {
  const updateNodeData = useCallback(
    (nodeId: string, data: Record<string, unknown>) => {
      setHistory((current) => {
        const synced = current.graph.settings.sync_with_voice_text ? withChatFollowingVoice(data) : data;
        return commit(current, { nodes: current.graph.nodes.map((node) => (node.id === nodeId ? { ...node, data: synced } : node)) }, { mergeKey: `node:${nodeId}` });
      });
    },
    [setHistory],
  );
  const updateNodeLabel = useCallback(
    (nodeId: string, typed: string) => {
      setHistory((current) =>
        commit(
          current,
          {
            nodes: current.graph.nodes.map((node) => {
              if (node.id !== nodeId) return node;
              // Kept as typed (spaces and all) while typing; saving trims it, and drops one left empty.
              const { label: _before, ...rest } = node;
              return typed === '' ? rest : { ...node, label: typed };
            }),
          },
          { mergeKey: `label:${nodeId}` },
        ),
      );
    },
    [setHistory],
  );
  const updateSettings = useCallback(
    (settings: PlanSettings, field: string) => {
      setHistory((current) => {
        // Turning the sync on brings every block's chat text in line at once (one undo step).
        const syncing = settings.sync_with_voice_text && !current.graph.settings.sync_with_voice_text;
        const nodes = syncing ? current.graph.nodes.map((node) => ({ ...node, data: withChatFollowingVoice(node.data) })) : current.graph.nodes;
        return commit(current, { settings, nodes }, { mergeKey: `settings.${field}` });
      });
    },
    [setHistory],
  );
  return { updateNodeData, updateNodeLabel, updateSettings };
}
