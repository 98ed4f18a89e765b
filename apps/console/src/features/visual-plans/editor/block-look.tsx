import type { BlockEditor } from '@voxplan/blocks/editor';
// The registry alone (icons, colours, summaries): the forms of `@voxplan/blocks/editor` load with the side panel.
import { blockEditor } from '@voxplan/blocks/editor/registry';
import { IconSquareRounded } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import type { EditorContextValue } from './editor-context.tsx';

/** What naming a block needs of the editor: the language and the names of the records blocks point to. */
export type NamingContext = Pick<EditorContextValue, 'language' | 'referenceName'>;

export interface BlockLook {
  icon: ComponentType<{ size?: number | string }>;
  color: string;
  summary(data: unknown, context: NamingContext): string;
  exitLabel(exit: string, data: unknown, context: NamingContext): string | undefined;
}

/** A block type this console does not know (a plan from a newer server): drawn plainly, its exits by name. */
const unknownLook: BlockLook = { icon: IconSquareRounded, color: 'gray', summary: () => '', exitLabel: () => undefined };

const looks = new Map<string, BlockLook>();

function lookOf(editor: BlockEditor): BlockLook {
  const staticLabels = editor.description.texts;
  return {
    icon: editor.icon,
    color: editor.color,
    summary: (data, context) => {
      try {
        return editor.summary(data, { language: context.language, referenceName: context.referenceName });
      } catch {
        // Data being typed may not be what the summary reads yet.
        return '';
      }
    },
    exitLabel: (exit, data, context) => staticLabels[context.language].exits[exit] ?? editor.exitLabel?.(exit, data, context.language),
  };
}

/** How a block type looks on the canvas and in the palette: its editor part's icon, colour, summary and exit labels. */
export function useBlockLook(type: string): BlockLook {
  return lookOfType(type);
}

/** useBlockLook outside a component: the looks are a cache, not React state. */
export function lookOfType(type: string): BlockLook {
  let look = looks.get(type);
  if (!look) {
    const editor = blockEditor(type);
    look = editor ? lookOf(editor) : unknownLook;
    looks.set(type, look);
  }
  return look;
}

/** A block type's name in the language ("Destination"); a type this console does not know, as stored. */
export function blockTypeName(type: string, language: NamingContext['language']): string {
  return blockEditor(type)?.description.texts[language].name ?? type;
}

/** A title's summary part is cut at this many characters: it names the block, it does not show all it does. */
const titleSummaryLength = 40;

/** A block as naming it needs: its type, its settings and the name a person gave it, if any. */
export interface NamedBlock {
  type: string;
  data: unknown;
  label?: string | undefined;
}

/**
 * How a block is named to a person outside the canvas (the issues, Find a block, a run's path): the
 * name a person gave it ("Welcome"), else its type's name and the first line of what it does,
 * "Destination · Sales", "Play message · Welcome to…".
 */
export function blockTitle({ type, data, label }: NamedBlock, context: NamingContext): string {
  if (label?.trim()) return label.trim();
  const name = blockTypeName(type, context.language);
  const first = lookOfType(type).summary(data, context).split('\n')[0]?.trim() ?? '';
  if (!first) return name;
  return `${name} · ${first.length > titleSummaryLength ? `${first.slice(0, titleSummaryLength - 1)}…` : first}`;
}

/**
 * The data of a block added from the palette, as its editor part starts it: its schema's defaults,
 * read by the forms' module. That module (zod) loads here the first time, as the side panel, which
 * shows the new block's form, would load it anyway; the canvas opens without it.
 */
export async function initialDataOf(type: string): Promise<Record<string, unknown>> {
  const editor = blockEditor(type);
  if (!editor) return {};
  const { newBlockData } = await import('@voxplan/blocks/editor');
  return newBlockData(editor);
}
