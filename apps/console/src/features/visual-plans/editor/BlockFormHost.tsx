import { type EditorServices, BlockForm, validateData } from '@voxplan/blocks/editor';
import { blockDefinition, dataWithoutGoal } from '@voxplan/blocks/definitions';
import { builtinVariables } from '@voxplan/engine';
import { useMemo } from 'react';
import { api } from '../../../lib/api/client.ts';
import { showError } from '../../../lib/errors.ts';
import { useFeatures } from '../../../lib/use-features.ts';
import { useTranslation } from 'react-i18next';
import { useEditorContext, useReferenceList } from './editor-context.tsx';
import type { GraphNode } from './graph-state.ts';
import { useWhatsAppTemplates } from './whatsapp-templates.ts';

/**
 * Variables the system sets beside the engine's built-ins: an outbound call's `answered_by`
 * (docs/outbound.md). Offered in every plan, as a plan may be used for calls either way.
 */
const outboundVariables = ['answered_by'] as const;

/** Plays one of the tenant's audios: the file needs the user's token, so it is fetched and played from memory. */
let playing: { audio: HTMLAudioElement; url: string } | undefined;
async function playAudio(audioId: number, tenantId: number): Promise<void> {
  const blob = await api.blob(`/audios/${audioId}/file`, { tenantId });
  if (playing) {
    playing.audio.pause();
    URL.revokeObjectURL(playing.url);
  }
  const url = URL.createObjectURL(blob);
  const audio = new Audio(url);
  playing = { audio, url };
  await audio.play();
}

/** The selected block's form: the blocks' generic form, lent the tenant's records and the plan's variables. */
export function BlockFormHost({
  node,
  issues,
  variableNames,
  onChange,
}: {
  node: GraphNode;
  /** The server's errors and warnings about this block, by path in its data. */
  issues: ReadonlyMap<string, string>;
  variableNames: readonly string[];
  onChange(data: Record<string, unknown>): void;
}) {
  const { t } = useTranslation();
  const { readOnly, language, tenantId } = useEditorContext();
  const features = useFeatures();
  const services = useMemo<EditorServices>(
    () => ({
      language,
      readOnly,
      // Called by the form's pickers as a hook, always in the same order for a given block.
      useReferenceOptions: (kind) => {
        const list = useReferenceList(kind, tenantId);
        return { options: list.data ?? [], loading: list.isLoading };
      },
      playAudio: (audioId) => void playAudio(audioId, tenantId).catch((error: unknown) => showError(error, t)),
      variableNames: [...new Set([...builtinVariables, ...outboundVariables, ...variableNames])],
      isSettingOn: features.isOn,
      // Called by the template pickers as a hook, as useReferenceOptions is.
      useWhatsAppTemplates: () => {
        const list = useWhatsAppTemplates(tenantId);
        return { templates: list.data ?? [], loading: list.isLoading };
      },
    }),
    [language, readOnly, tenantId, t, variableNames, features.isOn],
  );
  // What the user types is checked at once; the server's findings show where the live check has none.
  const merged = useMemo(() => {
    const schema = blockDefinition(node.type)?.schema;
    const live = schema ? validateData(schema, dataWithoutGoal(node.data), language) : new Map<string, string>();
    for (const [path, message] of issues) if (!live.has(path)) live.set(path, message);
    return live;
  }, [issues, language, node.data, node.type]);
  return <BlockForm type={node.type} data={node.data} onChange={onChange} issues={merged} services={services} />;
}
