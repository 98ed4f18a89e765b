import { Alert, Button, Center, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { ColorSchemeToggle } from '../../app/layout/ColorSchemeToggle.tsx';
import { FullPageLoader } from '../../app/guard.tsx';
import { ApiError } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { errorText } from '../../lib/errors.ts';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { useState } from 'react';
import { changeLocale, locales } from '../../i18n/index.ts';

const loginSchemaLoader = () => import('@voxplan/contracts/auth').then((contracts) => contracts.loginSchema);

export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const { status, login } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [failure, setFailure] = useState<string | null>(null);
  const from = (location.state as { from?: string } | null)?.from ?? '/dashboard';

  const { form, formRef, onSubmit, submitting } = useSchemaForm({
    schema: loginSchemaLoader,
    initialValues: { username: '', password: '' },
    hideError: true,
    submit: async (values) => {
      setFailure(null);
      await login(values.username ?? '', values.password ?? '');
    },
    onSuccess: () => void navigate(from, { replace: true }),
    onError: (error) => setFailure(error instanceof ApiError && error.status === 401 ? t('errors.invalid_credentials') : errorText(error, t)),
  });

  if (status === 'checking') return <FullPageLoader />;
  if (status === 'signed-in') return <Navigate to={from} replace />;

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="md" p="xl" w={380} radius="lg">
        <form ref={formRef} onSubmit={onSubmit} noValidate>
          <Stack>
            <Group justify="space-between">
              <Title order={1} size="h2" c="var(--app-brand-text)">
                {t('app.name')}
              </Title>
              <ColorSchemeToggle />
            </Group>
            <Text c="dimmed" size="sm">
              {t('auth.signInPrompt')}
            </Text>
            {failure && (
              <Alert color="red" data-testid="login-error">
                {failure}
              </Alert>
            )}
            <TextInput label={t('auth.username')} autoComplete="username" {...form.getInputProps('username')} name="username" />
            <PasswordInput label={t('auth.password')} autoComplete="current-password" {...form.getInputProps('password')} name="password" />
            <Button type="submit" loading={submitting} fullWidth data-testid="login-submit">
              {t('auth.signIn')}
            </Button>
            <Group justify="center" gap="xs">
              {locales.map((locale) => (
                <Button
                  key={locale}
                  variant={i18n.language === locale ? 'light' : 'subtle'}
                  size="compact-xs"
                  onClick={() => void changeLocale(locale)}
                  data-testid={`login-locale-${locale}`}
                >
                  {t(`languages.${locale}`)}
                </Button>
              ))}
            </Group>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
