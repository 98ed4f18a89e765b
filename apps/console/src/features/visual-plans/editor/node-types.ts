import { blockEditors } from '@voxplan/blocks/editor/registry';
import type { NodeTypes } from '@xyflow/react';
import { BlockNode } from './BlockNode.tsx';

/** Every block type is drawn by the one node component; the type names it for React Flow. */
export const nodeTypes: NodeTypes = Object.fromEntries(blockEditors.map((editor) => [editor.type, BlockNode]));
