import { Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Stands for an area whose screen comes with a later issue; it says so rather than showing nothing. */
export function PlaceholderPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <Title order={2}>{t(titleKey)}</Title>
      <Paper withBorder p="xl">
        <Text c="dimmed" data-testid="placeholder">
          {t('placeholder.comingSoon')}
        </Text>
      </Paper>
    </Stack>
  );
}
