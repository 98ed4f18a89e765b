import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { FullPageLoader } from '../../app/guard.tsx';

const PlansPage = lazy(() => import('./PlansPage.tsx'));
// The editor (React Flow, the block forms) loads only when a plan is opened.
const EditorPage = lazy(() => import('./editor/EditorPage.tsx'));

/** `/visual-plan` lists the tenant's plans; `/visual-plan/<id>` edits one. */
export default function VisualPlansArea() {
  return (
    <Suspense fallback={<FullPageLoader />}>
      <Routes>
        <Route index element={<PlansPage />} />
        <Route path=":planId" element={<EditorPage />} />
      </Routes>
    </Suspense>
  );
}
