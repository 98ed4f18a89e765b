import { lazy, type ReactNode, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { loadScreenTexts } from '../i18n/index.ts';
import { FullPageLoader, RequireAuth } from './guard.tsx';
import { areaOf, areaRoutes } from './routes.tsx';
import { SignedInQueries } from './signed-in-queries.tsx';

const loadLayout = () => Promise.all([import('./layout/AppLayout.tsx'), loadScreenTexts()]).then(([layout]) => layout);
const AppLayout = lazy(loadLayout);
const NotFoundPage = lazy(() => import('./NotFoundPage.tsx'));
const LoginPage = lazy(() => import('../features/login/LoginPage.tsx'));

/**
 * A page opened on a screen fetches the layout, the texts and that screen's code (and the editor's,
 * for a plan) while the session is checked, instead of one after the other once it is: a plan
 * opened from its address was drawn after six requests in a row (bench/README.md).
 */
function preloadScreen(pathname: string): void {
  if (/^\/login\/?$/i.test(pathname)) return;
  void loadLayout().catch(() => undefined);
  const area = areaOf(pathname);
  if (!area) return;
  const rest = pathname.slice(area.paths.find((path) => pathname === path || pathname.startsWith(`${path}/`))!.length);
  void area.page
    .preload()
    .then((module) => module.preload?.(rest))
    .catch(() => undefined);
}
preloadScreen(window.location.pathname);

const withSuspense = (element: ReactNode) => <Suspense fallback={<FullPageLoader />}>{element}</Suspense>;

/** The sign-in form reached from inside the console: it goes back to the screen that sent the user here. */
function LoginRoute() {
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return <LoginPage from={from} onSignedIn={(to) => void navigate(to, { replace: true })} />;
}

/**
 * Declarative routes rather than a data router: the console loads its data with TanStack Query,
 * and the data router's loaders and fetchers would add a third to what the sign-in screen loads.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={withSuspense(<LoginRoute />)} />
      <Route
        path="/"
        element={withSuspense(
          <RequireAuth>
            <SignedInQueries>
              <AppLayout />
            </SignedInQueries>
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

/** The router and the screens: loaded after the sign-in form when the page was opened at /login (`App.tsx`). */
export default function RoutedScreens() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
