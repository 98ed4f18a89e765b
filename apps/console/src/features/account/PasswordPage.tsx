import { Button, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { passwordChangeSchema, passwordMinLength } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';

type Values = { current_password: string; password: string; confirmation: string };
const empty: Values = { current_password: '', password: '', confirmation: '' };

/** Change my password: the current one, the new one twice (spec section 5). */
export default function PasswordPage() {
  const { t } = useTranslation();
  const schema = useMemo(
    () =>
      passwordChangeSchema.superRefine(
        (values, ctx) => {
          if (values.password === values.confirmation) return;
          // Not a "custom" issue: the form would show those as "Invalid format"; this one keeps its message.
          ctx.addIssue({ code: 'invalid_value', values: [], input: values.confirmation, path: ['confirmation'], message: t('validation.passwordsMismatch') });
        },
        {
          // Compared as soon as both are typed, even while another field is still wrong.
          when: ({ value }) => {
            const typed = value as Partial<Values> | undefined;
            return typeof typed?.password === 'string' && typeof typed.confirmation === 'string';
          },
        },
      ),
    [t],
  );
  const { form, formRef, onSubmit, submitting, succeeded } = useSchemaForm<Values>({
    schema,
    initialValues: empty,
    submit: (values) => api.post<void>('/me/password', values),
    onSuccess: () => {
      toast('success', t('password.saved'));
      form.setValues(empty);
      form.resetDirty(empty);
    },
  });
  return (
    <Stack maw={560}>
      <Title order={2}>{t('account.changePassword')}</Title>
      <Paper withBorder p="lg">
        <form ref={formRef} onSubmit={onSubmit} noValidate>
          <Stack>
            <Text size="sm">
              {t('password.intro', { min: passwordMinLength })}
            </Text>
            <PasswordInput
              label={t('password.current')}
              autoComplete="current-password"
              withAsterisk
              {...form.getInputProps('current_password')}
              data-testid="password-current"
            />
            <PasswordInput
              label={t('password.new')}
              autoComplete="new-password"
              withAsterisk
              {...form.getInputProps('password')}
              data-testid="password-new"
            />
            <PasswordInput
              label={t('password.confirmation')}
              autoComplete="new-password"
              withAsterisk
              {...form.getInputProps('confirmation')}
              data-testid="password-confirmation"
            />
            <Group justify="flex-end">
              <Button type="submit" loading={submitting} leftSection={succeeded ? <IconCheck size={16} /> : null} data-testid="password-save">
                {succeeded ? t('common.saved') : t('common.save')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
