import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { FullPageLoader } from '../../app/guard.tsx';

const loadPlansPage = () => import('./PlansPage.tsx');
// The editor (React Flow, the block forms) loads only when a plan is opened.
const loadEditorPage = () => import('./editor/EditorPage.tsx');
const PlansPage = lazy(loadPlansPage);
const EditorPage = lazy(loadEditorPage);

/** What a page opened below `/visual-plan` shows first (`rest`: the path after it), loaded ahead by the router. */
export function preload(rest: string): Promise<unknown> {
  return /^\/\d+\/?$/.test(rest) ? loadEditorPage() : loadPlansPage();
}

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
