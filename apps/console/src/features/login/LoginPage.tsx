import { Alert, Button, Center, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ColorSchemeToggle } from '../../app/layout/ColorSchemeToggle.tsx';
import { FullPageLoader } from '../../app/FullPageLoader.tsx';
import { ApiError } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { errorText } from '../../lib/error-text.ts';
import { focusFirstField, focusFirstInvalid } from '../../lib/forms/focus.ts';
import { validateWith } from '../../lib/forms/validation.ts';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { changeLocale, loadErrorTexts, locales } from '../../i18n/index.ts';

const loginSchemaLoader = () => import('@voxplan/contracts/auth').then((contracts) => contracts.loginSchema);

type Field = 'username' | 'password';

interface LoginPageProps {
  /** The screen to go to once signed in (a protected screen that sent the user here), else the dashboard. */
  from?: string;
  onSignedIn(to: string): void;
  /** Starts loading what comes after the sign-in, while the credentials are checked. */
  preload?: () => unknown;
}

/**
 * The sign-in form, with the behaviour of the console's schema forms (validated with the contract's
 * schema on submit, focus on the first field, then on the first invalid one) but without
 * `@mantine/form`, the router or the error catalogue: this is the first screen a browser loads,
 * and they arrive after it.
 */
export default function LoginPage({ from = '/dashboard', onSignedIn, preload }: LoginPageProps) {
  const { t, i18n } = useTranslation();
  const { status, login } = useAuth();
  const formRef = useRef<HTMLFormElement | null>(null);
  const [values, setValues] = useState<Record<Field, string>>({ username: '', password: '' });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const showForm = status === 'signed-out';
  useEffect(() => (showForm ? focusFirstField(formRef) : undefined), [showForm]);
  useEffect(() => {
    if (status === 'signed-in') onSignedIn(from);
  }, [status, from, onSignedIn]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const focusedAtSubmit = document.activeElement;
    void (async () => {
      const errors = validateWith(await loginSchemaLoader(), values, t);
      setFieldErrors(errors);
      if (Object.keys(errors).length > 0) {
        focusFirstInvalid(formRef.current, focusedAtSubmit);
        return;
      }
      setFailure(null);
      setSubmitting(true);
      preload?.();
      const errorTexts = loadErrorTexts();
      try {
        await login(values.username, values.password);
      } catch (error) {
        await errorTexts.catch(() => undefined);
        const details = error instanceof ApiError ? (error.body?.details ?? []) : [];
        const onFields = Object.fromEntries(details.filter((detail) => detail.path === 'username' || detail.path === 'password').map((detail) => [detail.path, detail.message]));
        setFieldErrors(onFields);
        if (Object.keys(onFields).length > 0) focusFirstInvalid(formRef.current, focusedAtSubmit);
        setFailure(error instanceof ApiError && error.status === 401 ? t('errors.invalid_credentials') : errorText(error, t));
      } finally {
        setSubmitting(false);
      }
    })();
  };

  const field = (name: Field) => ({
    value: values[name],
    error: fieldErrors[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [name]: value }));
      // As Mantine's form does: a field's error goes once it is changed.
      setFieldErrors((current) => (current[name] ? { ...current, [name]: '' } : current));
    },
  });

  if (!showForm) return <FullPageLoader />;

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
            <TextInput label={t('auth.username')} autoComplete="username" {...field('username')} name="username" />
            <PasswordInput label={t('auth.password')} autoComplete="current-password" {...field('password')} name="password" />
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
