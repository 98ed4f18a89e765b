import { Alert, Center, Loader, Modal } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlanVersionDocument } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { errorText } from '../../../lib/errors.ts';
import { DecorationStore } from './decorations.ts';
import { EditorContextProvider, useEditorContext } from './editor-context.tsx';
import { ReadOnlyCanvas } from './ReadOnlyCanvas.tsx';

/** One published version, or a saved draft, on a read-only canvas over the whole window. */
export function VersionViewer({ version, from = 'versions', onClose }: { version: number; from?: 'versions' | 'drafts'; onClose(): void }) {
  const { t } = useTranslation();
  const { planId, tenantId } = useEditorContext();
  const [decorations] = useState(() => new DecorationStore());
  const document = useQuery({
    queryKey: ['/visual-plans', from, planId, version],
    queryFn: ({ signal }) => api.get<Pick<VisualPlanVersionDocument, 'nodes' | 'edges'>>(`/visual-plans/${planId}/${from}/${version}`, { signal, tenantId }),
  });
  return (
    <Modal opened onClose={onClose} fullScreen title={t(from === 'drafts' ? 'editor.versions.viewingDraft' : 'editor.versions.viewing', { version })} data-testid="version-viewer">
      <div style={{ height: 'calc(100dvh - 90px)' }}>
        {document.isError && <Alert color="red">{errorText(document.error, t)}</Alert>}
        {!document.data && !document.isError && (
          <Center h="100%">
            <Loader aria-label={t('common.loading')} />
          </Center>
        )}
        {document.data && (
          <EditorContextProvider planId={planId} tenantId={tenantId} readOnly decorations={decorations}>
            <ReadOnlyCanvas nodes={document.data.nodes} edges={document.data.edges} />
          </EditorContextProvider>
        )}
      </div>
    </Modal>
  );
}
