import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorText } from './errors.ts';

/** The page loader's error view (spec section 2): a title and the server's message. */
export function PageError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert color="red" icon={<IconAlertTriangle />} title={t('common.errorTitle')} data-testid="page-error">
      <Stack gap="xs" align="flex-start">
        <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
          {errorText(error, t)}
        </Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        )}
      </Stack>
    </Alert>
  );
}
