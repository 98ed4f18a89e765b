import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { loadScreenTexts } from '../i18n/index.ts';
import { FullPageLoader, RequireAuth } from './guard.tsx';
import { areaRoutes } from './routes.tsx';

const AppLayout = lazy(() => Promise.all([import('./layout/AppLayout.tsx'), loadScreenTexts()]).then(([layout]) => layout));
const NotFoundPage = lazy(() => import('./NotFoundPage.tsx'));
const LoginPage = lazy(() => import('../features/login/LoginPage.tsx'));

const withSuspense = (element: ReactNode) => <Suspense fallback={<FullPageLoader />}>{element}</Suspense>;

/**
 * Declarative routes rather than a data router: the console loads its data with TanStack Query,
 * and the data router's loaders and fetchers would add a third to what the sign-in screen loads.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={withSuspense(<LoginPage />)} />
      <Route
        path="/"
        element={withSuspense(
          <RequireAuth>
            <AppLayout />
          </RequireAuth>,
        )}
      >
        <Route index element={<Navigate to="/dashboard" replace />} />
        {areaRoutes.flatMap((area) =>
          area.paths.map((path) => (
            <Route
              key={path}
              path={area.nested ? `${path.slice(1)}/*` : path.slice(1)}
              element={withSuspense(
                <RequireAuth roles={area.roles}>
                  <area.page />
                </RequireAuth>,
              )}
            />
          )),
        )}
        <Route path="*" element={withSuspense(<NotFoundPage />)} />
      </Route>
    </Routes>
  );
}
