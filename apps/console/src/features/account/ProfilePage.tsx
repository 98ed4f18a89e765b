import { Button, Group, Paper, Stack, TextInput, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { type Profile, profileUpdateSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';

// Both fields are on the form, so both are required here (the API accepts either alone).
const schema = profileUpdateSchema.required();

function ProfileForm({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const { refreshProfile } = useAuth();
  const { form, formRef, onSubmit, submitting, succeeded } = useSchemaForm({
    schema,
    initialValues: { name: profile.name, email: profile.email },
    submit: (values) => api.patch<Profile>('/me', { name: values.name, email: values.email }),
    onSuccess: (saved) => {
      // The server trims and lowercases: show what it kept.
      const kept = { name: (saved as Profile).name, email: (saved as Profile).email };
      form.setValues(kept);
      form.resetDirty(kept);
      toast('success', t('profile.saved'));
      refreshProfile();
    },
  });
  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate>
      <Stack>
        <TextInput label={t('profile.username')} value={profile.username} disabled data-testid="profile-username" />
        <TextInput label={t('profile.name')} autoComplete="name" withAsterisk {...form.getInputProps('name')} data-testid="profile-name" />
        <TextInput label={t('profile.email')} type="email" autoComplete="email" withAsterisk {...form.getInputProps('email')} data-testid="profile-email" />
        <Group justify="flex-end">
          <Button type="submit" loading={submitting} leftSection={succeeded ? <IconCheck size={16} /> : null} data-testid="profile-save">
            {succeeded ? t('common.saved') : t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** My name and e-mail. */
export default function ProfilePage() {
  const { t } = useTranslation();
  const { profile } = useAuth();
  return (
    <Stack maw={560}>
      <Title order={2}>{t('account.profile')}</Title>
      <Paper withBorder p="lg">
        {/* Signed-in pages always have a profile: the guard waits for it. */}
        {profile && <ProfileForm key={profile.id} profile={profile} />}
      </Paper>
    </Stack>
  );
}
