import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { FullPageLoader } from '../../app/guard.tsx';
import CampaignsPage from './CampaignsPage.tsx';

const CampaignDetailPage = lazy(() => import('./CampaignDetailPage.tsx'));

/** `/campaigns` lists the campaigns; `/campaigns/<id>` is one: its contacts, controls, progress and results. */
export default function CampaignsArea() {
  return (
    <Suspense fallback={<FullPageLoader />}>
      <Routes>
        <Route index element={<CampaignsPage />} />
        <Route path=":campaignId" element={<CampaignDetailPage />} />
      </Routes>
    </Suspense>
  );
}
