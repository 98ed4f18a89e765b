import { Badge, Tooltip } from '@mantine/core';
import { blockDescription } from '@voxplan/blocks/editor/registry';
import { IconPhoneOff } from '@tabler/icons-react';
import { Handle, type NodeProps, Position, useNodeConnections } from '@xyflow/react';
import { memo, type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { visibleExits } from './block-exits.ts';
import { type BlockFlowNode, useBlockData, useBlockLabel } from './block-data.ts';
import { useBlockLook } from './block-look.tsx';
import { useFarOut, useZoomedOut } from './canvas-view.ts';
import { useNodeDecoration } from './decorations.ts';
import { issueText } from './issue-text.ts';
import { useEditorContext } from './editor-context.tsx';
import classes from './editor.module.css';

export type { BlockFlowNode };
/** What a block is drawn from (sameBlock). */
type BlockProps = Pick<NodeProps<BlockFlowNode>, 'id' | 'type' | 'data' | 'selected'>;

/**
 * A block on the canvas: its icon and name, a summary of its settings, and one labelled handle per
 * exit. Every block type renders through this one component (the type is React Flow's node type).
 * Zoomed out (canvas-view.ts) a block that is not selected is drawn plainly: icon, name and a row
 * per exit, without the summary, the exits' labels, the handles (overview-edges.tsx draws the edges
 * then) or the issues' badge (its border still shows them); further out (`outlineZoom`), where
 * a name would be under 3 px, without its icon and name either: its coloured outline.
 */
export const BlockNode = memo(function BlockNode({ id, type, data: passed, selected }: BlockProps) {
  const { t } = useTranslation();
  const context = useEditorContext();
  const data = useBlockData(context.blockData, id, passed);
  const label = useBlockLabel(context.blockData, id)?.trim() || undefined;
  const decoration = useNodeDecoration(context.decorations, id);
  const look = useBlockLook(type);
  const texts = blockDescription(type)?.texts[context.language];
  const connections = useNodeConnections({ handleType: 'source' });
  const connectedExits = useMemo(() => connections.map((connection) => connection.sourceHandle ?? ''), [connections]);
  const exits = visibleExits(type, data, connectedExits);
  const plain = useZoomedOut() && !selected;
  const outline = useFarOut() && !selected;
  const summary = plain ? '' : look.summary(data, context);
  const Icon = look.icon;
  const state = decoration.errors.length > 0 ? 'error' : decoration.warnings.length > 0 ? 'warning' : undefined;
  const mark = decoration.mark;
  const heat = mark?.heat === undefined ? undefined : Math.min(1, Math.max(0, mark.heat));

  return (
    <div
      className={classes.node}
      data-selected={selected || undefined}
      data-state={state}
      data-visited={decoration.visited || undefined}
      data-current={decoration.current || undefined}
      data-tone={mark?.tone}
      data-heat={heat}
      title={mark?.title}
      data-testid="plan-node"
      data-node-id={id}
      data-node-type={type}
      data-detail={outline ? 'outline' : plain ? 'plain' : 'full'}
      style={{ '--block-color': `var(--mantine-color-${look.color}-filled)`, ...(heat !== undefined && { '--heat': `${Math.round(heat * 70)}%` }) } as React.CSSProperties}
    >
      {type !== 'start' && !plain && <Handle type="target" position={Position.Left} className={classes.targetHandle} />}
      {/* Plain elements styled by the module, not Mantine's Group and Text: a plan shows a thousand
          blocks with a few labels each, and every Mantine component resolves its theme, props and
          styles as it renders, which made up most of the time a large plan took to open or zoom out. */}
      <div className={classes.nodeHeader}>
        {!outline && <Icon size={16} />}
        {/* A named block reads by its name ("Welcome"); its type is still its icon, and the pointer's title. */}
        {!outline && (
          <span className={classes.nodeName} title={label === undefined ? undefined : (texts?.name ?? type)} data-testid="node-name">
            {label ?? texts?.name ?? type}
          </span>
        )}
        {mark?.badge !== undefined && (
          <span className={classes.nodeBadge} data-testid="node-badge">
            {mark.badge}
          </span>
        )}
        {state && !plain && (
          <Tooltip label={[...decoration.errors, ...decoration.warnings].map((issue) => issueText(issue, { type, data, label }, context, t)).join('\n')} multiline maw={320}>
            <Badge size="xs" color={state === 'error' ? 'red' : 'yellow'} variant="filled" data-testid={`node-${state}`}>
              {decoration.errors.length + decoration.warnings.length}
            </Badge>
          </Tooltip>
        )}
      </div>
      {summary && (
        <div className={classes.nodeSummary} data-testid="node-summary">
          {summary}
        </div>
      )}
      {exits.length > 0 && (
        <div className={classes.exits}>
          {exits.map(({ exit, known }) => (
            <div key={exit} className={classes.exit} data-unknown={!known || undefined}>
              {!plain && <div className={classes.exitLabel}>{look.exitLabel(exit, data, context) ?? exit}</div>}
              {!plain && <Handle type="source" id={exit} position={Position.Right} className={classes.sourceHandle} data-testid={`exit-${exit}`} />}
              {!plain && known && context.actions && !context.readOnly && !connectedExits.includes(exit) && (
                <>
                  <ExitButton kind="add" exit={exit} label={t('editor.line.addFrom', { exit: look.exitLabel(exit, data, context) ?? exit })} onClick={(at) => context.actions?.addFromExit(id, exit, at)}>
                    +
                  </ExitButton>
                  <ExitButton kind="end" exit={exit} label={t('editor.line.endHere', { exit: look.exitLabel(exit, data, context) ?? exit })} onClick={(at) => context.actions?.endAtExit(id, exit, at)}>
                    <IconPhoneOff size={10} aria-hidden />
                  </ExitButton>
                </>
              )}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}, sameBlock);

/** A button beside an unconnected exit; `onClick` gets the point right of it, where a picker opens. */
function ExitButton({ kind, exit, label, onClick, children }: { kind: 'add' | 'end'; exit: string; label: string; onClick(at: { x: number; y: number }): void; children: ReactNode }) {
  return (
    <button
      type="button"
      className={kind === 'add' ? `${classes.exitAdd} nodrag nopan` : `${classes.exitAdd} ${classes.exitEnd} nodrag nopan`}
      aria-label={label}
      title={label}
      onClick={(event) => {
        event.stopPropagation();
        const box = event.currentTarget.getBoundingClientRect();
        onClick({ x: box.right + 8, y: box.top });
      }}
      data-testid={`exit-${kind}-${exit}`}
    >
      {children}
    </button>
  );
}

/**
 * A block is drawn from its id, type, data and selection only. React Flow also passes its measured
 * size and its position, which change for every block when a plan's blocks are first measured (and
 * for a dragged block at every step): compared too, they made a large plan's blocks all render
 * twice as it opened.
 */
function sameBlock(before: BlockProps, after: BlockProps): boolean {
  return before.id === after.id && before.type === after.type && before.data === after.data && before.selected === after.selected;
}
