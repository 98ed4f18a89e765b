import type { Profile } from '@voxplan/contracts';
import { type RoleName, roleInWorkingTenant } from '@voxplan/contracts/roles';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from './api/client.ts';

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
  /** Reads the profile again (after the user changed it); the one shown stays until the new one arrives. */
  refreshProfile(): void;
}

const AuthContext = createContext<AuthValue | null>(null);

function storedTenant(): number {
  const value = Number(localStorage.getItem(DEFAULT_TENANT_KEY));
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** A 4xx will not get better by asking again; other failures are asked twice more, after 1 and 2 s. */
async function fetchProfile(signal: AbortSignal): Promise<Profile> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api.get<Profile>('/whoami', { signal });
    } catch (error) {
      if (attempt >= 2 || signal.aborted || (error instanceof ApiError && error.status < 500)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
    }
  }
}

interface ProfileState {
  profile?: Profile;
  failed: boolean;
}

/**
 * The session and the signed-in user's profile. It holds no query cache: the sign-in screen loads
 * without TanStack Query, which arrives with the screens behind it (`app/signed-in-queries.tsx`).
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<Status>(api.getToken() ? 'signed-in' : 'checking');
  const [adminTenant, setAdminTenant] = useState(storedTenant);
  const [profileState, setProfileState] = useState<ProfileState>({ failed: false });
  const [profileAsked, setProfileAsked] = useState(0);

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
      setProfileState({ failed: false });
      setStatus('signed-out');
      // The toasts' store is not on the sign-in screen's first load; a session only expires later.
      void import('./notify.ts').then(({ toast }) => toast('warning', t('auth.sessionExpired')));
    };
  }, [t]);

  useEffect(() => {
    if (status !== 'signed-in') return;
    const controller = new AbortController();
    fetchProfile(controller.signal).then(
      (profile) => setProfileState({ profile, failed: false }),
      () => {
        if (!controller.signal.aborted) setProfileState((state) => ({ ...state, failed: true }));
      },
    );
    return () => controller.abort();
  }, [status, profileAsked]);
  const refreshProfile = useCallback(() => setProfileAsked((asked) => asked + 1), []);
  const profile = status === 'signed-in' ? profileState.profile : undefined;
  const role = profile ? roleInWorkingTenant(profile.roles) : 'guest';
  const tenantId = role === 'admin' ? adminTenant : (profile?.roles[0]?.tenant_id ?? 0);
  api.tenantId = tenantId;

  // The screens' queries are asked again when the tenant changes (`signed-in-queries.tsx`).
  const setTenantId = useCallback((id: number) => {
    localStorage.setItem(DEFAULT_TENANT_KEY, String(id));
    api.tenantId = id;
    setAdminTenant(id);
  }, []);

  const login = useCallback(
    async (username: string, password: string) => {
      await api.login(username, password);
      setProfileState({ failed: false });
      setStatus('signed-in');
    },
    [],
  );

  const logout = useCallback(async () => {
    try {
      await api.logout();
    } finally {
      setProfileState({ failed: false });
      setStatus('signed-out');
    }
  }, []);

  const value = useMemo<AuthValue>(
    () => ({
      status: status === 'signed-in' && !profile && !profileState.failed ? 'checking' : status,
      profile,
      role,
      tenantId,
      setTenantId,
      login,
      logout,
      refreshProfile,
    }),
    [status, profile, profileState.failed, role, tenantId, setTenantId, login, logout, refreshProfile],
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
