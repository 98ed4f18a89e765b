import { Alert, Grid, Group, PasswordInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { numberLimits, type PhoneNumber } from '@voxplan/contracts';
import { whatsappDailyLimits } from '@voxplan/contracts/whatsapp-templates';
import { useTranslation } from 'react-i18next';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import { type NumberForm, UNLIMITED } from './form-values.ts';
import { WhatsappTemplates } from './WhatsappTemplates.tsx';

/**
 * What Meta's WhatsApp Cloud API needs: the webhook URL to paste there (known once the number is
 * saved), the verification token it echoes, the access token and the app secret that signs Meta's
 * deliveries (both answered masked: left as they are, they keep the stored ones) and Meta's id of
 * the phone number; for templates, the WhatsApp Business Account and Meta's daily limit tier, and
 * once saved the templates themselves.
 */
export function WhatsappSection({ form, number, isDraft }: { form: NumberForm; number: PhoneNumber | undefined; isDraft: boolean }) {
  const { t, i18n } = useTranslation();
  const webhookUrl = number?.whatsapp_webhook_url;
  const tiers = whatsappDailyLimits.map((tier) =>
    tier === null ? { value: UNLIMITED, label: t('numbers.dailyLimitUnlimited') } : { value: String(tier), label: t('numbers.dailyLimitTier', { count: tier, formatted: tier.toLocaleString(i18n.language) }) },
  );
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
      <Grid>
        <Grid.Col span={{ base: 12, sm: 6 }}>
          <TextInput
            label={t('numbers.businessAccountId')}
            description={t('numbers.businessAccountIdHint')}
            maxLength={numberLimits.whatsappField}
            autoComplete="off"
            inputMode="numeric"
            {...form.getInputProps('whatsapp_business_account_id')}
            data-testid="number-waba-id"
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 6 }}>
          <Select
            label={t('numbers.dailyLimit')}
            description={t('numbers.dailyLimitHint')}
            allowDeselect={false}
            data={tiers}
            {...form.getInputProps('whatsapp_daily_limit')}
            data-testid="number-daily-limit"
          />
        </Grid.Col>
      </Grid>
      {number && <WhatsappTemplates number={number} />}
    </Stack>
  );
}
