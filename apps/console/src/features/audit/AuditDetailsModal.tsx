import { Badge, Box, Code, Group, SimpleGrid, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import type { AuditEntry } from '@voxplan/contracts';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal } from '../../lib/AppModal.tsx';

type Snapshot = Record<string, unknown>;

const isSnapshot = (value: unknown): value is Snapshot => typeof value === 'object' && value !== null && !Array.isArray(value);
const pretty = (value: unknown) => JSON.stringify(value, null, 2) ?? String(value);

/** The top-level keys whose values differ between the two snapshots (added and removed keys included). */
export function changedKeys(before: unknown, after: unknown): Set<string> {
  const left = isSnapshot(before) ? before : {};
  const right = isSnapshot(after) ? after : {};
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return new Set([...keys].filter((key) => pretty(left[key]) !== pretty(right[key])));
}

/** A snapshot as pretty-printed JSON, one block per top-level key so that changed keys can be marked. */
function SnapshotBlock({ value, changed, tone, testId }: { value: unknown; changed: Set<string>; tone: 'red' | 'green'; testId: string }) {
  const { t } = useTranslation();
  if (value === null || value === undefined) {
    return (
      <Text size="sm" fs="italic" data-testid={testId}>
        {t('audit.noData')}
      </Text>
    );
  }
  const mark = (key: string, text: string, last: boolean): ReactNode => {
    const isChanged = changed.has(key);
    return (
      <Box
        key={key}
        component="span"
        display="block"
        data-changed={isChanged || undefined}
        style={
          isChanged
            ? { background: `var(--mantine-color-${tone}-light)`, boxShadow: `inset 3px 0 0 var(--mantine-color-${tone}-filled)` }
            : undefined
        }
      >
        {isChanged && <VisuallyHidden>{t('audit.changedKey')}</VisuallyHidden>}
        {text}
        {last ? '' : ','}
      </Box>
    );
  };
  if (!isSnapshot(value)) {
    return (
      <Code block data-testid={testId}>
        {pretty(value)}
      </Code>
    );
  }
  const entries = Object.entries(value);
  return (
    <Code block data-testid={testId} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
      {'{'}
      {entries.map(([key, item], index) =>
        mark(key, `  ${JSON.stringify(key)}: ${pretty(item).replace(/\n/g, '\n  ')}`, index === entries.length - 1),
      )}
      {'}'}
    </Code>
  );
}

/** What the audit log calls an entity ("configuration"), in the user's language; an unknown one as written. */
export function entityName(entity: string, t: TFunction): string {
  return t(`audit.entities.${entity}`, { defaultValue: entity });
}

/** One audit entry: who did what, and the record before and after, side by side. */
export function AuditDetailsModal({ entry, opened, onClose }: { entry: AuditEntry | null; opened: boolean; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const changed = entry ? changedKeys(entry.before, entry.after) : new Set<string>();
  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened && entry !== null} onClose={onClose} size="6xl" title={t('audit.detailsTitle', { id: entry?.id ?? '' })}>
      {entry && (
        <Stack data-testid="audit-details-content">
          <Group gap="md">
            <Badge variant="light">{t(`audit.actions.${entry.action}`)}</Badge>
            <Text size="sm">
              {t('audit.summary', {
                entity: entityName(entry.entity, t),
                id: entry.entity_id ?? '—',
                user: entry.username ?? '—',
                time: new Date(entry.created_time).toLocaleString(i18n.language === 'pt' ? 'pt-BR' : 'en'),
                ip: entry.source_ip ?? '—',
              })}
            </Text>
          </Group>
          {changed.size > 0 && entry.before !== null && entry.after !== null && (
            <Text size="sm">
              {t('audit.changedLegend', { count: changed.size })}
            </Text>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <Stack gap="xs">
              <Title order={3} size="h5">
                {t('audit.before')}
              </Title>
              <SnapshotBlock value={entry.before} changed={changed} tone="red" testId="audit-before" />
            </Stack>
            <Stack gap="xs">
              <Title order={3} size="h5">
                {t('audit.after')}
              </Title>
              <SnapshotBlock value={entry.after} changed={changed} tone="green" testId="audit-after" />
            </Stack>
          </SimpleGrid>
        </Stack>
      )}
    </AppModal>
  );
}
