import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { FullPageLoader } from '../../app/guard.tsx';
import ReportsPage from './ReportsPage.tsx';

// The detail draws the plan with the editor's canvas (React Flow): it loads only when a report is opened.
const ReportDetailPage = lazy(() => import('./ReportDetailPage.tsx'));

/** `/reports` lists the call reports; `/reports/<id>` shows one, so it can be linked. */
export default function ReportsArea() {
  return (
    <Suspense fallback={<FullPageLoader />}>
      <Routes>
        <Route index element={<ReportsPage />} />
        <Route path=":reportId" element={<ReportDetailPage />} />
      </Routes>
    </Suspense>
  );
}
