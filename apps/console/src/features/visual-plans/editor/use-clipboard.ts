import { useCallback, useEffect } from 'react';
import { nothingSelected, type Selection, type SetHistory, type SetSelection } from './editor-selection.ts';
import { commit, fragmentOf, type Graph, paste, readFragment, removeElements } from './graph-state.ts';

/**
 * Copying, cutting, pasting, duplicating and removing the selection. The system clipboard carries
 * blocks as the plan file's JSON: between plans and browser tabs.
 */
export function useClipboard(
  graph: Graph,
  selection: Selection,
  readOnly: boolean,
  setHistory: SetHistory,
  setSelection: SetSelection,
  selectOnly: (nodeIds: readonly string[]) => void,
  viewCentre: () => { x: number; y: number },
) {
  const pasteFragment = useCallback(
    (text: string, placement: Parameters<typeof paste>[2]) => {
      const fragment = readFragment(text);
      if (!fragment || readOnly) return false;
      setHistory((current) => {
        const pasted = paste(current.graph, fragment, placement);
        if (!pasted) return current;
        queueMicrotask(() => selectOnly(pasted.nodeIds));
        return commit(current, pasted.change);
      });
      return true;
    },
    [readOnly, selectOnly, setHistory],
  );

  const copySelection = useCallback((): string | undefined => {
    const fragment = fragmentOf(graph, selection.nodes);
    return fragment.nodes.length > 0 ? JSON.stringify(fragment) : undefined;
  }, [graph, selection.nodes]);

  const duplicateSelection = useCallback(() => {
    const text = copySelection();
    if (text) pasteFragment(text, { offset: { x: 40, y: 40 } });
  }, [copySelection, pasteFragment]);

  const removeSelection = useCallback(() => {
    if (readOnly) return;
    setHistory((current) => {
      const change = removeElements(current.graph, selection.nodes, selection.edges);
      return change ? commit(current, change) : current;
    });
    setSelection(nothingSelected);
  }, [readOnly, selection, setHistory, setSelection]);

  useEffect(() => {
    const inField = () => {
      const active = document.activeElement;
      return active instanceof HTMLElement && (active.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName));
    };
    const onCopy = (event: ClipboardEvent) => {
      if (inField()) return;
      const text = copySelection();
      if (!text || !event.clipboardData) return;
      event.clipboardData.setData('text/plain', text);
      event.preventDefault();
    };
    const onCut = (event: ClipboardEvent) => {
      if (inField() || readOnly) return;
      onCopy(event);
      if (event.defaultPrevented) removeSelection();
    };
    const onPaste = (event: ClipboardEvent) => {
      if (inField()) return;
      const text = event.clipboardData?.getData('text/plain');
      if (text && pasteFragment(text, { at: viewCentre() })) event.preventDefault();
    };
    document.addEventListener('copy', onCopy);
    document.addEventListener('cut', onCut);
    document.addEventListener('paste', onPaste);
    return () => {
      document.removeEventListener('copy', onCopy);
      document.removeEventListener('cut', onCut);
      document.removeEventListener('paste', onPaste);
    };
  }, [copySelection, pasteFragment, readOnly, removeSelection, viewCentre]);

  return { pasteFragment, copySelection, duplicateSelection, removeSelection };
}
