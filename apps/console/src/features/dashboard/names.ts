import { useQuery } from '@tanstack/react-query';
import type * as BlockDefinitions from '@voxplan/blocks/definitions';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';

type Definitions = typeof BlockDefinitions;
let definitions: Promise<Definitions> | undefined;

/**
 * A block type's name in the interface language. The block definitions (with every block's schema)
 * are loaded on first use, after the dashboard shows: until then the type itself stands in.
 */
export function useBlockName(): (type: string | null) => string | null {
  const { i18n } = useTranslation();
  const [loaded, setLoaded] = useState<Definitions>();
  useEffect(() => {
    let current = true;
    definitions ??= import('@voxplan/blocks/definitions');
    void definitions.then((module) => current && setLoaded(module));
    return () => {
      current = false;
    };
  }, []);
  const language = i18n.language === 'pt' ? 'pt' : 'en';
  return (type) => (type === null ? null : (loaded?.blockDefinition(type)?.texts[language].name ?? type));
}

/** The working tenant's plans by id, for naming the plan a session runs. */
export function usePlanNames(): ReadonlyMap<number, string> {
  const { tenantId } = useAuth();
  const plans = useQuery({
    queryKey: ['/visual-plans', tenantId, 'names'],
    queryFn: ({ signal }) => api.get<{ id: number; name: string }[]>('/visual-plans', { query: { filter: { fields: ['id', 'name'], limit: 1000 } }, signal }),
    staleTime: 30_000,
    select: (rows) => new Map(rows.map((row) => [row.id, row.name])),
  });
  return plans.data ?? noPlans;
}

const noPlans: ReadonlyMap<number, string> = new Map();
