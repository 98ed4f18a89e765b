import { Group, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One figure of the dashboard: a label over a large value. */
export function Figure({ label, value, hint, icon, testId }: { label: string; value: string; hint?: string; icon?: ReactNode; testId: string }) {
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" c="dimmed">
          {label}
        </Text>
        {icon}
      </Group>
      <Text fz={28} fw={700} lh={1.3} data-testid={`${testId}-value`}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}
