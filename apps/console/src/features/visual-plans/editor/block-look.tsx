import { blockDefinition } from '@voxplan/blocks/definitions';
import { IconSquareRounded } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import type { EditorContextValue } from './editor-context.tsx';

export interface BlockLook {
  icon: ComponentType<{ size?: number | string }>;
  color: string;
  summary(data: unknown, context: EditorContextValue): string;
  exitLabel(exit: string, data: unknown, exitTexts: Record<string, string> | undefined): string | undefined;
}

const fallback: BlockLook = {
  icon: IconSquareRounded,
  color: 'blue',
  summary: () => '',
  exitLabel: (exit, _data, exitTexts) => exitTexts?.[exit],
};

/** How a block type looks on the canvas and in the palette. */
export function useBlockLook(_type: string): BlockLook {
  return fallback;
}

/** The data of a block added from the palette: its schema's defaults, or what its editor starts it with. */
export function initialDataOf(type: string): Record<string, unknown> {
  const definition = blockDefinition(type);
  const parsed = definition?.schema.safeParse({});
  return parsed?.success ? (parsed.data as Record<string, unknown>) : {};
}
