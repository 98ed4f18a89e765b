import { useQuery } from '@tanstack/react-query';
import type { ReferenceKind } from '@voxplan/blocks/definitions';
import type { PickerOption } from '@voxplan/blocks/editor';
import { createContext, useContext, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import type { BlockDataStore } from './block-data.ts';
import type { DecorationStore } from './decorations.ts';

/** Where each kind of record a block refers to is listed. */
const referenceResources: Record<ReferenceKind, string> = {
  destination: '/destinations',
  audio: '/audios',
  date_range: '/date-ranges',
  plan: '/visual-plans',
};

/** Pickers offer at most the largest page the API answers; a tenant with more finds them by typing. */
const pickerLimit = 1000;

/**
 * The tenant's records of a kind, by name, for pickers and for naming a reference on a block. Read
 * in the plan's own tenant (an administrator on "All tenants" edits a plan of one tenant).
 */
export function useReferenceList(kind: ReferenceKind, tenantId: number) {
  const resource = referenceResources[kind];
  return useQuery({
    queryKey: [resource, tenantId, 'picker'],
    queryFn: ({ signal }) =>
      api.get<{ id: number; name: string }[]>(resource, { query: { filter: { fields: ['id', 'name'], order: ['name ASC'], limit: pickerLimit } }, signal, tenantId }),
    staleTime: 30_000,
    select: (rows): PickerOption[] => rows.map((row) => ({ value: row.id, label: row.name })),
  });
}

/** What the canvas's blocks and lines ask of the editor; read-only canvases have none. */
export interface EditorActions {
  /** Offers the block list beside an exit's "+" (a point on the screen): the block chosen comes connected. */
  addFromExit(nodeId: string, exit: string, at: { x: number; y: number }): void;
  /** Ends the call (or chat) at an exit in one click: a hang-up block follows it, connected. */
  endAtExit(nodeId: string, exit: string, at: { x: number; y: number }): void;
  removeEdge(edgeId: string): void;
}

export interface EditorContextValue {
  planId: number;
  tenantId: number;
  readOnly: boolean;
  decorations: DecorationStore;
  /** The blocks' data and names as the canvas draws them (the editor's, or a read-only canvas's own). */
  blockData?: BlockDataStore;
  actions?: EditorActions;
  language: 'en' | 'pt';
  /** The name of a referenced record, when it is loaded. */
  referenceName(kind: ReferenceKind, id: number | null | undefined): string | undefined;
}

const EditorContext = createContext<EditorContextValue | null>(null);

export function useEditorContext(): EditorContextValue {
  const value = useContext(EditorContext);
  if (!value) throw new Error('useEditorContext outside the plan editor');
  return value;
}

/** A read-only canvas's blocks, for its blocks to read their names from (the editor passes its own store to `EditorContextProvider`). */
export function BlockDataProvider({ store, children }: { store: BlockDataStore; children: React.ReactNode }) {
  const outer = useEditorContext();
  const value = useMemo(() => ({ ...outer, blockData: store }), [outer, store]);
  return <EditorContext.Provider value={value}>{children}</EditorContext.Provider>;
}

export function EditorContextProvider({
  planId,
  tenantId,
  readOnly,
  decorations,
  blockData,
  actions,
  children,
}: {
  planId: number;
  tenantId: number;
  readOnly: boolean;
  decorations: DecorationStore;
  blockData?: BlockDataStore;
  actions?: EditorActions;
  children: React.ReactNode;
}) {
  const { i18n } = useTranslation();
  const destinations = useReferenceList('destination', tenantId);
  const audios = useReferenceList('audio', tenantId);
  const dateRanges = useReferenceList('date_range', tenantId);
  const plans = useReferenceList('plan', tenantId);
  const value = useMemo<EditorContextValue>(() => {
    const lists: Record<ReferenceKind, PickerOption[] | undefined> = { destination: destinations.data, audio: audios.data, date_range: dateRanges.data, plan: plans.data };
    const names = new Map<string, string>();
    for (const [kind, options] of Object.entries(lists)) for (const option of options ?? []) names.set(`${kind}:${option.value}`, option.label);
    return {
      planId,
      tenantId,
      readOnly,
      decorations,
      ...(blockData && { blockData }),
      ...(actions && { actions }),
      language: i18n.language === 'pt' ? 'pt' : 'en',
      referenceName: (kind, id) => (id == null ? undefined : names.get(`${kind}:${id}`)),
    };
  }, [planId, tenantId, readOnly, decorations, blockData, actions, i18n.language, destinations.data, audios.data, dateRanges.data, plans.data]);
  return <EditorContext.Provider value={value}>{children}</EditorContext.Provider>;
}
