import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiError } from '../lib/api/client.ts';
import { useAuth } from '../lib/auth.tsx';

function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not get better by asking again.
        retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
        refetchOnWindowFocus: false,
      },
    },
  });
}

/**
 * The screens' query cache, made when a user signs in and dropped when the session ends (the
 * signed-in layout unmounts then), so nothing a user saw outlives their session. It is not on the
 * sign-in screen: TanStack Query comes with the screens behind it.
 */
export function SignedInQueries({ children }: { children: ReactNode }) {
  const [client] = useState(newQueryClient);
  const { tenantId } = useAuth();
  const shownTenant = useRef(tenantId);
  // Another working tenant: every screen's data is asked again.
  useEffect(() => {
    if (shownTenant.current === tenantId) return;
    shownTenant.current = tenantId;
    void client.invalidateQueries();
  }, [client, tenantId]);
  useEffect(() => () => client.clear(), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
