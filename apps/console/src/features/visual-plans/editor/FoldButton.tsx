import { ActionIcon, Tooltip } from '@mantine/core';
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand, IconLayoutSidebarRightCollapse, IconLayoutSidebarRightExpand } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import classes from './editor.module.css';

/** The button on the canvas' edge that folds the block list (start) or the side panel (end) away, and back. */
export function FoldButton({ side, open, onToggle }: { side: 'start' | 'end'; open: boolean; onToggle(): void }) {
  const { t } = useTranslation();
  const label = t(`editor.room.${side === 'start' ? 'blocks' : 'panel'}${open ? 'Hide' : 'Show'}`);
  const Icon = side === 'start' ? (open ? IconLayoutSidebarLeftCollapse : IconLayoutSidebarLeftExpand) : open ? IconLayoutSidebarRightCollapse : IconLayoutSidebarRightExpand;
  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="sm" className={classes.fold} data-side={side} aria-label={label} onClick={onToggle} data-testid={`fold-${side === 'start' ? 'blocks' : 'panel'}`}>
        <Icon size={16} />
      </ActionIcon>
    </Tooltip>
  );
}
