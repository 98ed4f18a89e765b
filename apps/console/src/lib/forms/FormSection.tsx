import { Divider, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled part of a long form, set off by a rule, with a line saying what it is for. */
export function FormSection({ title, hint, children }: { title: string; hint?: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Divider />
      <Title order={4}>{title}</Title>
      {hint && (
        <Text size="sm" c="dimmed">
          {hint}
        </Text>
      )}
      {children}
    </Stack>
  );
}
