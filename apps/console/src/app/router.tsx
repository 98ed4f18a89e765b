import { lazy, type ReactNode, Suspense } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { FullPageLoader, RequireAuth } from './guard.tsx';
import { areaRoutes } from './routes.tsx';

const AppLayout = lazy(() => import('./layout/AppLayout.tsx'));
const LoginPage = lazy(() => import('../features/login/LoginPage.tsx'));

const withSuspense = (element: ReactNode) => <Suspense fallback={<FullPageLoader />}>{element}</Suspense>;

const areaChildren: RouteObject[] = areaRoutes.flatMap((area) =>
  area.paths.map((path) => ({
    path: path.slice(1),
    handle: { area },
    element: withSuspense(
      <RequireAuth roles={area.roles}>
        <area.page />
      </RequireAuth>,
    ),
  })),
);

export const router = createBrowserRouter([
  { path: '/login', element: withSuspense(<LoginPage />) },
  {
    path: '/',
    element: withSuspense(
      <RequireAuth>
        <AppLayout />
      </RequireAuth>,
    ),
    children: [{ index: true, element: <Navigate to="/dashboard" replace /> }, ...areaChildren, { path: '*', element: <Navigate to="/dashboard" replace /> }],
  },
]);
