import { ActionIcon, Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';

/** An icon button of a table row: its label is the tooltip and the accessible name. */
export function RowAction({ label, icon, onClick, color, testId }: { label: string; icon: ReactNode; onClick(): void; color?: string; testId: string }) {
  return (
    <Tooltip label={label}>
      <ActionIcon variant="subtle" color={color} aria-label={label} onClick={onClick} data-testid={testId}>
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}
