import { Alert, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { numberLimits } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import type { NumberForm } from './form-values.ts';

/**
 * What Meta's WhatsApp Cloud API needs: the webhook URL to paste there (known once the number is
 * saved), the verification token it echoes, the access token and the app secret that signs Meta's
 * deliveries (both answered masked: left as they are, they keep the stored ones) and Meta's id of
 * the phone number.
 */
export function WhatsappSection({ form, webhookUrl, isDraft }: { form: NumberForm; webhookUrl: string | null | undefined; isDraft: boolean }) {
  const { t } = useTranslation();
  return (
    <Stack gap="sm" data-testid="number-whatsapp">
      {isDraft && (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />} p="xs" data-testid="number-whatsapp-draft">
          {t('numbers.draftWarning')}
        </Alert>
      )}
      {webhookUrl ? (
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <TextInput style={{ flex: 1 }} label={t('numbers.webhookUrl')} value={webhookUrl} readOnly data-testid="number-webhook-url" />
          <CopyValueButton value={webhookUrl} label={t('numbers.copyWebhookUrl')} testId="number-webhook-copy" />
        </Group>
      ) : (
        <Text size="sm" c="dimmed" data-testid="number-webhook-pending">
          {t('numbers.webhookUrlAfterSave')}
        </Text>
      )}
      <TextInput
        label={t('numbers.verifyToken')}
        description={t('numbers.verifyTokenHint')}
        maxLength={numberLimits.whatsappField}
        autoComplete="off"
        spellCheck={false}
        {...form.getInputProps('whatsapp_verify_token')}
        data-testid="number-verify-token"
      />
      <PasswordInput
        label={t('numbers.whatsappToken')}
        description={t('numbers.whatsappTokenHint')}
        maxLength={numberLimits.whatsappToken}
        autoComplete="off"
        {...form.getInputProps('whatsapp_token')}
        data-testid="number-whatsapp-token"
      />
      <PasswordInput
        label={t('numbers.whatsappAppSecret')}
        description={t('numbers.whatsappAppSecretHint')}
        maxLength={numberLimits.whatsappField}
        autoComplete="off"
        {...form.getInputProps('whatsapp_app_secret')}
        data-testid="number-whatsapp-app-secret"
      />
      <TextInput
        label={t('numbers.phoneNumberId')}
        description={t('numbers.phoneNumberIdHint')}
        maxLength={numberLimits.whatsappField}
        autoComplete="off"
        {...form.getInputProps('whatsapp_phone_number_id')}
        data-testid="number-phone-number-id"
      />
    </Stack>
  );
}
