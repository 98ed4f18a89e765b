import { Alert, Button, Group, Text } from '@mantine/core';
import { IconFlask } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatNumber } from '../../lib/format.ts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { testCallsWhere } from './report-filter.ts';

/**
 * Says that calls made from the test panel are left out, when some are, with one click to show
 * them: a newcomer who has only tested their plan otherwise sees zeros and empty lists and cannot
 * tell why. `where` is what the screen selects besides the test flag (a period, a plan).
 */
export function HiddenTestCalls({ where, onShow, showTo }: { where: Record<string, unknown> | undefined; onShow?(): void; showTo?: string }) {
  const { t, i18n } = useTranslation();
  const { tenantId } = useAuth();
  const testWhere = testCallsWhere(where);
  // Asked when what the screen selects changes, not again on every return to the window: the
  // count is a hint, and a second request beside a running CSV export slowed the export's stream.
  const count =
    useQuery({
      queryKey: ['/reports', tenantId, 'hidden-tests', testWhere],
      queryFn: ({ signal }) => api.get<{ count: number }>('/reports/count', { query: { where: testWhere }, signal }),
      staleTime: 60_000,
      refetchOnWindowFocus: false,
    }).data?.count ?? 0;
  if (count === 0) return null;
  const label = t('reports.hiddenTests.show');
  return (
    <Alert color="gray" icon={<IconFlask size={18} />} p="xs" data-testid="hidden-tests">
      <Group justify="space-between" gap="xs">
        <Text size="sm">{t('reports.hiddenTests.notice', { count, formatted: formatNumber(count, i18n.language) })}</Text>
        {showTo ? (
          <Button component={Link} to={showTo} size="compact-sm" variant="light" data-testid="hidden-tests-show">
            {label}
          </Button>
        ) : (
          <Button size="compact-sm" variant="light" onClick={onShow} data-testid="hidden-tests-show">
            {label}
          </Button>
        )}
      </Group>
    </Alert>
  );
}
