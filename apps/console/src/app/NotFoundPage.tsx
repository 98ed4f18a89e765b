import { Button, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

/** An address the console has no screen for: said so, rather than taken silently to the dashboard. */
export default function NotFoundPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <Stack align="flex-start" gap="sm" data-testid="not-found">
      <Title order={2}>{t('notFound.title')}</Title>
      <Text c="dimmed">{t('notFound.message', { path: pathname })}</Text>
      <Button component={Link} to="/dashboard">
        {t('notFound.dashboard')}
      </Button>
    </Stack>
  );
}
