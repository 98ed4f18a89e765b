import { Paper, ScrollArea, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A dashboard table: its headings (numbers right-aligned), its rows, and a line saying so when there are none. */
export function FigureTable({
  headings,
  emptyText,
  emptyTestId,
  isEmpty,
  testId,
  striped,
  children,
}: {
  headings: { label: string; numeric?: boolean }[];
  emptyText: string;
  emptyTestId?: string;
  isEmpty: boolean;
  testId: string;
  striped?: boolean;
  children: ReactNode;
}) {
  return (
    <Paper withBorder>
      <ScrollArea>
        <Table striped={striped} highlightOnHover={!striped} verticalSpacing="xs" data-testid={testId}>
          <Table.Thead>
            <Table.Tr>
              {headings.map((heading) => (
                <Table.Th key={heading.label} ta={heading.numeric ? 'right' : undefined}>
                  {heading.label}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {isEmpty && (
              <Table.Tr>
                <Table.Td colSpan={headings.length}>
                  <Text size="sm" c="dimmed" ta="center" data-testid={emptyTestId}>
                    {emptyText}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {children}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}
