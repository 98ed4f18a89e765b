import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import type { PlanEdge } from '@voxplan/blocks/definitions';
import { planFormatVersion } from '@voxplan/blocks/editor/registry';
import type { VisualPlan, VisualPlanDocument, VisualPlanPublished } from '@voxplan/contracts/visual-plan';
import { type ReactNode, useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, api } from '../../../lib/api/client.ts';
import { useAuth } from '../../../lib/auth.tsx';
import { showError } from '../../../lib/errors.ts';
import type { LeaveReason } from '../../../lib/leave-guard.ts';
import { toast } from '../../../lib/notify.ts';
import type { RolloutSettings } from '../rollouts/rollout-api.ts';
import type { DecorationStore } from './decorations.ts';
import { contentOf, type Graph } from './graph-state.ts';

type PlanIssues = VisualPlanDocument['errors'];

export interface PlanSaving {
  /** The draft version the editor's work is based on (what the next save names). */
  baseVersion: number;
  publishedVersion: number | null;
  /** The revision of the graph the server holds: equal to the graph's, nothing is unsaved. */
  savedRevision: number;
  /** The edges of the draft as the server holds it (the test panel runs that draft). */
  savedEdges: readonly PlanEdge[];
  saving: boolean;
  publishing: boolean;
  /** Saves the draft; answers whether it was saved. */
  save(): Promise<boolean>;
  /** Publishes the draft; with a rollout, to a share of sessions only (the published version stays). */
  publish(rollout?: RolloutSettings): Promise<void>;
  /** A rollout promoted elsewhere (the versions drawer) changed the version calls run. */
  setPublishedVersion(version: number): void;
  /** Makes a published version the draft again (a save: version + 1), then reloads the editor with it. */
  /** Makes a published version (`versions`) or a saved draft (`drafts`) the draft again. */
  restore(version: number, from?: 'versions' | 'drafts'): Promise<void>;
  /** Asks what to do with unsaved work before leaving; answers whether to leave. */
  askToLeave(reason: LeaveReason): Promise<boolean>;
  /** A restored or reloaded draft replaces the editor's work. */
  adopt(document: VisualPlanDocument): void;
  dialogs: ReactNode;
}

const issueDetails = (error: ApiError): PlanIssues =>
  (error.body?.details ?? []).map((detail) => ({
    code: (detail as { code?: string }).code ?? 'invalid_field',
    message: detail.message,
    path: detail.path,
    node_id: (detail as { node_id?: string }).node_id,
    edge_id: (detail as { edge_id?: string }).edge_id,
  }));

/**
 * Saving the draft (`PUT …/document` with the version it was based on), publishing, and the way
 * out of a conflict: another user saved first (`409 plan_out_of_sync`), so the work is saved as a
 * new plan or let go (spec section 4). Nothing the user drew is lost on the way.
 */
export function usePlanSaving({ loaded, graph, decorations, readOnly, onReload }: { loaded: VisualPlanDocument; graph: Graph; decorations: DecorationStore; readOnly: boolean; onReload(): void }): PlanSaving {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [baseVersion, setBaseVersion] = useState(loaded.version);
  const [publishedVersion, setPublishedVersion] = useState(loaded.published_version);
  const [savedRevision, setSavedRevision] = useState(graph.revision);
  const [savedEdges, setSavedEdges] = useState<readonly PlanEdge[]>(loaded.edges);
  const [saving, setSaving] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const [conflict, setConflictOpen] = useState(false);
  /** Who saved first, as the plan names them: the user's own id means another tab or window of theirs. */
  const [savedBy, setSavedBy] = useState<{ id: number | null; name: string | null }>();
  const { profile } = useAuth();
  const setConflict = useCallback(
    (open: boolean) => {
      setConflictOpen(open);
      if (!open) return;
      setSavedBy(undefined);
      void api
        .get<VisualPlan>(`/visual-plans/${loaded.id}`, { tenantId: loaded.tenant_id })
        .then((plan) => setSavedBy({ id: plan.updated_by, name: plan.updated_by_name }))
        .catch(() => setSavedBy({ id: null, name: null }));
    },
    [loaded.id, loaded.tenant_id],
  );
  const [saveAsName, setSaveAsName] = useState('');
  const [savingAs, setSavingAs] = useState(false);
  const [leaving, setLeaving] = useState<{ reason: LeaveReason; answer(leave: boolean): void } | null>(null);
  const graphRef = useRef(graph);
  graphRef.current = graph;
  const baseRef = useRef(baseVersion);
  baseRef.current = baseVersion;

  const body = (current: Graph) => ({ format_version: planFormatVersion, ...contentOf(current) });

  const save = useCallback(async (): Promise<boolean> => {
    if (readOnly) return false;
    const current = graphRef.current;
    setSaving(true);
    try {
      const base = baseRef.current;
      const saved = await api.put<VisualPlanDocument>(`/visual-plans/${loaded.id}/document`, { base_version: base, ...body(current) });
      setBaseVersion(saved.version);
      baseRef.current = saved.version;
      setSavedRevision(current.revision);
      setSavedEdges(saved.edges);
      decorations.setIssues(saved.errors, saved.warnings);
      // The server makes no version of a save that changes nothing.
      if (saved.version === base) toast('info', t('editor.nothingToSave', { version: saved.version }));
      else toast('success', saved.warnings.length > 0 ? t('editor.savedWithWarnings', { version: saved.version, count: saved.warnings.length }) : t('editor.savedVersion', { version: saved.version }));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'plan_out_of_sync') {
        setSaveAsName(t('editor.conflict.defaultName', { name: loaded.name }).slice(0, 100));
        setConflict(true);
      } else if (error instanceof ApiError && error.code === 'invalid_plan') {
        decorations.setIssues(issueDetails(error), decorations.getIssues().warnings);
        toast('error', t('editor.invalidPlan', { count: error.body?.details?.length ?? 0 }));
      } else showError(error, t);
      return false;
    } finally {
      setSaving(false);
    }
  }, [decorations, loaded.id, loaded.name, readOnly, setConflict, t]);

  const publish = useCallback(async (rollout?: RolloutSettings) => {
    if (readOnly) return;
    if (graphRef.current.revision !== savedRevision && !(await save())) return;
    setPublishing(true);
    try {
      const version = await api.post<VisualPlanPublished>(`/visual-plans/${loaded.id}/publish`, { base_version: baseRef.current, ...(rollout && { rollout }) });
      if (rollout) toast('success', t('rollouts.startedToast', { version: version.version, share: rollout.share }));
      else {
        setPublishedVersion(version.version);
        toast('success', t('editor.publishedToast', { version: version.version }));
      }
      void queryClient.invalidateQueries({ queryKey: ['/visual-plans', 'versions', loaded.id] });
      void queryClient.invalidateQueries({ queryKey: ['/visual-plans', 'rollout', loaded.id] });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'plan_out_of_sync') setConflict(true);
      else showError(error, t);
    } finally {
      setPublishing(false);
    }
  }, [loaded.id, queryClient, readOnly, save, savedRevision, setConflict, t]);

  const restore = useCallback(
    async (version: number, from: 'versions' | 'drafts' = 'versions') => {
      try {
        await api.post<VisualPlanDocument>(`/visual-plans/${loaded.id}/${from}/${version}/restore`, { base_version: baseRef.current });
        toast('success', t('editor.versions.restored', { version }));
        onReload();
      } catch (error) {
        if (error instanceof ApiError && error.code === 'plan_out_of_sync') setConflict(true);
        else showError(error, t);
      }
    },
    [loaded.id, onReload, setConflict, t],
  );

  const saveAs = async () => {
    setSavingAs(true);
    try {
      const created = await api.post<VisualPlanDocument>(`/visual-plans/${loaded.id}/save-as`, { name: saveAsName.trim(), description: loaded.description, ...body(graphRef.current) });
      setConflict(false);
      // The work is stored: leaving the old plan loses nothing.
      setSavedRevision(graphRef.current.revision);
      toast('success', t('editor.conflict.savedAs', { name: created.name }));
      void queryClient.invalidateQueries({ queryKey: ['/visual-plans'] });
      navigate(`/visual-plan/${created.id}`);
    } catch (error) {
      showError(error, t);
    } finally {
      setSavingAs(false);
    }
  };

  const discard = () => {
    setConflict(false);
    onReload();
  };

  const askToLeave = useCallback((reason: LeaveReason) => new Promise<boolean>((resolve) => setLeaving({ reason, answer: resolve })), []);
  const answerLeaving = async (choice: 'save' | 'discard' | 'stay') => {
    const pending = leaving;
    if (!pending) return;
    if (choice === 'save' && !(await save())) return;
    setLeaving(null);
    pending.answer(choice !== 'stay');
  };

  const adopt = useCallback((document: VisualPlanDocument) => {
    setBaseVersion(document.version);
    baseRef.current = document.version;
    setPublishedVersion(document.published_version);
    decorations.setIssues(document.errors, document.warnings);
  }, [decorations]);

  const dialogs = (
    <>
      <Modal opened={conflict} onClose={() => setConflict(false)} title={t('editor.conflict.title')} data-testid="conflict-dialog">
        <Stack>
          <Text size="sm" data-testid="conflict-message">
            {savedBy?.id != null && savedBy.id === profile?.id
              ? t('editor.conflict.byYou')
              : savedBy?.name
                ? t('editor.conflict.byUser', { name: savedBy.name })
                : t('editor.conflict.message')}
          </Text>
          <TextInput label={t('editor.conflict.newName')} value={saveAsName} onChange={(event) => setSaveAsName(event.currentTarget.value)} maxLength={100} data-testid="conflict-name" />
          <Group justify="flex-end">
            <Button variant="default" color="red" onClick={discard} data-testid="conflict-discard">
              {t('editor.conflict.discard')}
            </Button>
            <Button onClick={() => void saveAs()} loading={savingAs} disabled={saveAsName.trim() === ''} data-testid="conflict-save-as">
              {t('editor.conflict.saveAs')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={leaving !== null} onClose={() => void answerLeaving('stay')} title={t(leaving?.reason === 'tenant' ? 'editor.leave.tenantTitle' : 'editor.leave.title')} data-testid="leave-dialog">
        <Stack>
          <Text size="sm">{t(leaving?.reason === 'tenant' ? 'editor.leave.tenantMessage' : 'editor.leave.message')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => void answerLeaving('stay')} data-testid="leave-stay">
              {t('common.cancel')}
            </Button>
            <Button variant="light" color="red" onClick={() => void answerLeaving('discard')} data-testid="leave-discard">
              {t('editor.leave.discard')}
            </Button>
            <Button onClick={() => void answerLeaving('save')} loading={saving} data-testid="leave-save">
              {t('editor.leave.save')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );

  return { baseVersion, publishedVersion, setPublishedVersion, savedRevision, savedEdges, saving, publishing, save, publish, restore, askToLeave, adopt, dialogs };
}
