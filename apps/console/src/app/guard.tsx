import type { RoleName } from '@voxplan/contracts';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useAuth } from '../lib/auth.tsx';
import { FullPageLoader } from './FullPageLoader.tsx';

export { FullPageLoader } from './FullPageLoader.tsx';

/**
 * Spec section 2: without a session a protected route goes to /login; a role that is not listed
 * goes to /.
 */
export function RequireAuth({ roles, children }: { roles?: RoleName[]; children: ReactNode }) {
  const { status, role } = useAuth();
  const location = useLocation();
  if (status === 'checking') return <FullPageLoader />;
  if (status === 'signed-out') return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  if (roles && !roles.includes(role)) return <Navigate to="/" replace />;
  return children;
}
