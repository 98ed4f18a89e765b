import '@xyflow/react/dist/style.css';
import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { ReactFlowProvider } from '@xyflow/react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { ApiError, api } from '../../../lib/api/client.ts';
import { useAuth } from '../../../lib/auth.tsx';
import { errorText } from '../../../lib/errors.ts';
import { PlanEditor } from './PlanEditor.tsx';

/** The draft of a plan, as the editor loads it; `['/visual-plans', tenant, 'document', id]`. */
export const documentQueryKey = (tenantId: number, planId: number) => ['/visual-plans', tenantId, 'document', planId] as const;

/** `/visual-plan/<id>`: one plan on the canvas. */
export default function EditorPage() {
  const { t } = useTranslation();
  const { planId: planParam } = useParams();
  const { tenantId } = useAuth();
  const planId = Number(planParam);
  const valid = Number.isInteger(planId) && planId > 0;
  const document = useQuery({
    queryKey: documentQueryKey(tenantId, planId),
    queryFn: ({ signal }) => api.get<VisualPlanDocument>(`/visual-plans/${planId}/document`, { signal }),
    enabled: valid,
    // The editor holds the user's work; a refetch must not replace it behind their back.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });

  if (!valid || document.isError) {
    const notFound = !valid || (document.error instanceof ApiError && document.error.status === 404);
    return (
      <Stack maw={520} mx="auto" mt="xl">
        <Alert color="red" title={t(notFound ? 'editor.notFound' : 'editor.loadFailed')} data-testid="editor-load-error">
          {notFound ? t('editor.notFoundHint') : errorText(document.error, t)}
        </Alert>
        <Button component={Link} to="/visual-plan" variant="default">
          {t('editor.backToPlans')}
        </Button>
      </Stack>
    );
  }
  if (!document.data) {
    return (
      <Center h="60vh">
        <Loader aria-label={t('common.loading')} />
      </Center>
    );
  }
  return (
    <ReactFlowProvider>
      {/* A new key per loaded document: a reload after a conflict starts the editor afresh. */}
      <PlanEditor key={`${document.data.id}:${document.dataUpdatedAt}`} loaded={document.data} onReload={() => void document.refetch()} />
    </ReactFlowProvider>
  );
}
