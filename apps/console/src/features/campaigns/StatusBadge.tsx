import { Badge } from '@mantine/core';
import type { Campaign } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';

const statusColor: Record<Campaign['status'], string> = {
  draft: 'gray',
  running: 'teal',
  paused: 'yellow',
  completed: 'blue',
  cancelled: 'red',
};

/** A campaign's status in the user's language (its own file: the dashboard shows it without the list's code). */
export function StatusBadge({ status }: { status: Campaign['status'] }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={statusColor[status]} data-testid="campaign-status" data-value={status}>
      {t(`campaigns.statuses.${status}`)}
    </Badge>
  );
}
