import { ActionIcon, Tooltip } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { BaseEdge, EdgeLabelRenderer, type EdgeProps, getBezierPath, useInternalNode } from '@xyflow/react';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlockData } from './block-data.ts';
import { useBlockLook } from './block-look.tsx';
import { useEditorContext } from './editor-context.tsx';
import classes from './editor.module.css';

/**
 * The pointer's reach around a line, in screen pixels at 100 %: React Flow's 20 made the line under
 * the pointer hard to hit where several meet at one block.
 */
export const lineHitWidth = 28;

/**
 * A line of the plan in the editor: it thickens under the pointer, and once selected it is drawn in
 * the primary colour with its exit's label where it leaves and a button that removes it, so that of
 * several lines meeting at one block the one clicked is the one seen and removed.
 */
export const PlanLine = memo(function PlanLine({ id, source, sourceHandleId, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, selected, animated, style, data }: EdgeProps) {
  const { t } = useTranslation();
  const context = useEditorContext();
  const hovered = data?.hovered === true;
  const [path, labelX, labelY] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  const marked = hovered || selected;
  return (
    <>
      <g data-line-state={selected ? 'selected' : hovered ? 'hover' : undefined}>
        <BaseEdge id={id} path={path} interactionWidth={lineHitWidth} style={style} className={selected ? classes.selectedLine : hovered ? classes.hoveredLine : undefined} />
      </g>
      {marked && !animated && (
        <EdgeLabelRenderer>
          <ExitTag source={source} exit={sourceHandleId ?? ''} x={sourceX} y={sourceY} />
          {selected && context.actions && !context.readOnly && (
            <div className={`${classes.lineTool} nodrag nopan`} style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}>
              <Tooltip label={t('editor.line.remove')}>
                <ActionIcon size="sm" radius="xl" color="red" variant="filled" aria-label={t('editor.line.remove')} onClick={() => context.actions?.removeEdge(id)} data-testid="line-remove">
                  <IconX size={14} />
                </ActionIcon>
              </Tooltip>
            </div>
          )}
        </EdgeLabelRenderer>
      )}
    </>
  );
});

/** The label of the exit a line leaves from, just past its handle. */
function ExitTag({ source, exit, x, y }: { source: string; exit: string; x: number; y: number }) {
  const context = useEditorContext();
  const node = useInternalNode(source);
  const look = useBlockLook(node?.type ?? '');
  const data = useBlockData(context.blockData, source, node?.data ?? {});
  const label = look.exitLabel(exit, data, context) ?? exit;
  return (
    <div className={classes.exitTag} style={{ transform: `translate(8px, -50%) translate(${x}px, ${y}px)` }} data-testid="line-exit">
      {label}
    </div>
  );
}

export const edgeTypes = { plan: PlanLine };

/** How finely a line is walked to find its point nearest the pointer, in the plan's units. */
const sampleStep = 4;

/**
 * The line nearest a point of the screen among those whose hit area holds it. Where several lines
 * meet at one block their hit areas overlap, and the browser gives the pointer to the one drawn
 * last, not to the one under it: the wrong line was selected, and removed.
 */
export function nearestLineAt(x: number, y: number): string | undefined {
  const hits = document.elementsFromPoint(x, y).filter((element): element is SVGPathElement => element instanceof SVGPathElement && element.classList.contains('react-flow__edge-interaction'));
  let nearest: { id: string; distance: number } | undefined;
  for (const hit of hits) {
    const id = hit.closest('.react-flow__edge')?.getAttribute('data-id');
    const matrix = hit.getScreenCTM()?.inverse();
    if (!id || !matrix) continue;
    const local = new DOMPoint(x, y).matrixTransform(matrix);
    const length = hit.getTotalLength();
    let distance = Number.POSITIVE_INFINITY;
    for (let along = 0; along <= length; along += sampleStep) {
      const point = hit.getPointAtLength(along);
      distance = Math.min(distance, Math.hypot(point.x - local.x, point.y - local.y));
    }
    if (!nearest || distance < nearest.distance) nearest = { id, distance };
  }
  return nearest?.id;
}
