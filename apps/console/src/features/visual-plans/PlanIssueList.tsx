import { Alert, List, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { ErrorDetail } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';

/**
 * What the server found wrong with a plan's content (`invalid_plan` details): each problem by its
 * translated kind, the block and field it is about, and the server's own words for the particulars.
 */
export function PlanIssueList({ issues }: { issues: readonly ErrorDetail[] }) {
  const { t } = useTranslation();
  return (
    <Alert color="red" icon={<IconAlertTriangle size={18} />} title={t('plans.issuesTitle', { count: issues.length })} data-testid="plan-issues">
      <List size="sm" spacing={4}>
        {issues.map((issue, index) => (
          <List.Item key={index} data-testid="plan-issue">
            <Text size="sm" fw={600} span>
              {t(`plans.issueCodes.${issue.code ?? 'invalid_field'}`, { defaultValue: issue.code ?? '' })}
            </Text>{' '}
            {issue.node_id !== undefined && <Text size="sm" span>{t('plans.issueBlock', { id: issue.node_id })} </Text>}
            {issue.edge_id !== undefined && <Text size="sm" span>{t('plans.issueEdge', { id: issue.edge_id })} </Text>}
            {issue.path !== '' && <Text size="sm" span ff="monospace">{issue.path}</Text>}
            <Text size="xs" c="dimmed">
              {issue.message}
            </Text>
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
