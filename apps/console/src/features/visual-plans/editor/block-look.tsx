import { blockDefinition } from '@voxplan/blocks/definitions';
import type { BlockEditor } from '@voxplan/blocks/editor';
// The registry alone (icons, colours, summaries): the forms of `@voxplan/blocks/editor` load with the side panel.
import { blockEditor } from '@voxplan/blocks/editor/registry';
import { IconSquareRounded } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import type { EditorContextValue } from './editor-context.tsx';

export interface BlockLook {
  icon: ComponentType<{ size?: number | string }>;
  color: string;
  summary(data: unknown, context: EditorContextValue): string;
  exitLabel(exit: string, data: unknown, context: EditorContextValue): string | undefined;
}

/** A block type this console does not know (a plan from a newer server): drawn plainly, its exits by name. */
const unknownLook: BlockLook = { icon: IconSquareRounded, color: 'gray', summary: () => '', exitLabel: () => undefined };

const looks = new Map<string, BlockLook>();

function lookOf(editor: BlockEditor): BlockLook {
  const staticLabels = editor.definition.texts;
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
  let look = looks.get(type);
  if (!look) {
    const editor = blockEditor(type);
    look = editor ? lookOf(editor) : unknownLook;
    looks.set(type, look);
  }
  return look;
}

/** The data of a block added from the palette, as its editor part starts it. */
export function initialDataOf(type: string): Record<string, unknown> {
  const initial = blockEditor(type)?.initialData;
  if (initial) return structuredClone(initial) as Record<string, unknown>;
  const parsed = blockDefinition(type)?.schema.safeParse({});
  return parsed?.success ? (parsed.data as Record<string, unknown>) : {};
}
