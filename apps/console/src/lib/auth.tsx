import type { Profile } from '@voxplan/contracts';
import { type RoleName, roleInWorkingTenant } from '@voxplan/contracts/roles';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from './api/client.ts';
import { toast } from './notify.ts';

export const DEFAULT_TENANT_KEY = 'default-tenant';

type Status = 'checking' | 'signed-in' | 'signed-out';

interface AuthValue {
  status: Status;
  profile: Profile | undefined;
  role: RoleName;
  /** The tenant the console works in: an admin's choice (0: all), else the first role's tenant. */
  tenantId: number;
  setTenantId(id: number): void;
  login(username: string, password: string): Promise<void>;
  logout(): Promise<void>;
}

const AuthContext = createContext<AuthValue | null>(null);

function storedTenant(): number {
  const value = Number(localStorage.getItem(DEFAULT_TENANT_KEY));
  return Number.isInteger(value) && value > 0 ? value : 0;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const { t } = useTranslation();
  const [status, setStatus] = useState<Status>(api.getToken() ? 'signed-in' : 'checking');
  const [adminTenant, setAdminTenant] = useState(storedTenant);

  // Spec section 4: with no token, try a refresh once; success means we are still signed in.
  useEffect(() => {
    if (status !== 'checking') return;
    api.refresh().then(
      () => setStatus('signed-in'),
      () => setStatus('signed-out'),
    );
  }, [status]);

  useEffect(() => {
    api.onSessionExpired = () => {
      queryClient.clear();
      setStatus('signed-out');
      toast('warning', t('auth.sessionExpired'));
    };
  }, [queryClient, t]);

  const profileQuery = useQuery({
    queryKey: ['whoami'],
    queryFn: ({ signal }) => api.get<Profile>('/whoami', { signal }),
    enabled: status === 'signed-in',
    staleTime: 60_000,
  });
  const profile = status === 'signed-in' ? profileQuery.data : undefined;
  const role = profile ? roleInWorkingTenant(profile.roles) : 'guest';
  const tenantId = role === 'admin' ? adminTenant : (profile?.roles[0]?.tenant_id ?? 0);
  api.tenantId = tenantId;

  const setTenantId = useCallback(
    (id: number) => {
      localStorage.setItem(DEFAULT_TENANT_KEY, String(id));
      api.tenantId = id;
      setAdminTenant(id);
      void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'whoami' });
    },
    [queryClient],
  );

  const login = useCallback(
    async (username: string, password: string) => {
      await api.login(username, password);
      queryClient.removeQueries();
      setStatus('signed-in');
    },
    [queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await api.logout();
    } finally {
      queryClient.clear();
      setStatus('signed-out');
    }
  }, [queryClient]);

  const value = useMemo<AuthValue>(
    () => ({
      status: status === 'signed-in' && !profile && !profileQuery.isError ? 'checking' : status,
      profile,
      role,
      tenantId,
      setTenantId,
      login,
      logout,
    }),
    [status, profile, profileQuery.isError, role, tenantId, setTenantId, login, logout],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth outside AuthProvider');
  return value;
}

/** Guests read and never write (spec section 4): screens show them no way to. */
export function useCanWrite(): boolean {
  return useAuth().role !== 'guest';
}
