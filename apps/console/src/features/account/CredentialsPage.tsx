import { ActionIcon, Alert, Button, Code, Group, Paper, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ApiKey, type ApiKeyCreated, apiKeyCreateSchema } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import { useCanWrite } from '../../lib/auth.tsx';
import { confirmRemoval } from '../../lib/confirm.tsx';
import { showError } from '../../lib/errors.ts';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { PageError } from '../../lib/PageError.tsx';
import { MODAL_CLOSE_MS } from '../../app/theme.ts';
import { formatDateTime } from '../../lib/format.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';

const API_KEYS = ['/api-keys'];

function useApiKeyMutations() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: API_KEYS });
  return {
    create: useMutation({ mutationFn: (name: string) => api.post<ApiKeyCreated>('/api-keys', { name }), onSuccess: invalidate }),
    revoke: useMutation({ mutationFn: (id: number) => api.delete<void>(`/api-keys/${id}`), onSuccess: invalidate }),
  };
}

function CreateKeyModal({ onClose, onCreated }: { onClose(): void; onCreated(key: ApiKeyCreated): void }) {
  const { t } = useTranslation();
  const { create } = useApiKeyMutations();
  const { form, formRef, onSubmit, submitting } = useSchemaForm({
    schema: apiKeyCreateSchema,
    initialValues: { name: '' },
    submit: (values) => create.mutateAsync(values.name ?? ''),
    onSuccess: (created) => onCreated(created as ApiKeyCreated),
  });
  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened onClose={onClose} size="sm" title={t('credentials.createTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput
            label={t('credentials.name')}
            description={t('credentials.nameHint')}
            autoComplete="off"
            withAsterisk
            {...form.getInputProps('name')}
            data-testid="apikey-name"
          />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="apikey-save" submitLabel={t('common.create')} />
        </Stack>
      </form>
    </AppModal>
  );
}

/** The new key, shown once: only its hash is kept on the server. */
function SecretModal({ created, opened, onClose }: { created: ApiKeyCreated | null; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={opened}
      onClose={onClose}
      size="lg"
      title={t('credentials.createdTitle', { name: created?.name ?? '' })}
      closeOnClickOutside={false}
    >
      {created && (
        <Stack>
          <Alert color="yellow" icon={<IconAlertTriangle />} data-testid="apikey-warning">
            {t('credentials.secretWarning')}
          </Alert>
          <Text size="sm" fw={500}>
            {t('credentials.secretLabel')}
          </Text>
          <Group gap="xs" wrap="nowrap" align="center">
            <Code block data-testid="apikey-secret" style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
              {created.key}
            </Code>
            <CopyValueButton value={created.key} testId="apikey-copy" />
          </Group>
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="apikey-done">
              {t('credentials.done')}
            </Button>
          </Group>
        </Stack>
      )}
    </AppModal>
  );
}

/**
 * Credentials: my API keys, for scripts and integrations that call the API as me. A guest creates
 * none (the server answers readonly_only) but may revoke one made before becoming a guest.
 */
export default function CredentialsPage() {
  const { t, i18n } = useTranslation();
  const canWrite = useCanWrite();
  const keys = useQuery({
    queryKey: API_KEYS,
    queryFn: ({ signal }) => api.get<ApiKey[]>('/api-keys', { signal }),
  });
  const { revoke } = useApiKeyMutations();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [secretOpened, setSecretOpened] = useState(false);

  const confirmRevoke = (key: ApiKey) =>
    confirmRemoval({
      title: t('credentials.revokeTitle'),
      message: t('credentials.revokeMessage', { name: key.name }),
      confirmLabel: t('credentials.revoke'),
      onConfirm: () =>
        revoke.mutate(key.id, {
          onSuccess: () => toast('success', t('credentials.revoked')),
          onError: (error) => showError(error, t),
        }),
    });

  const rows = keys.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t('account.credentials')}</Title>
        {canWrite && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="apikey-new">
            {t('credentials.new')}
          </Button>
        )}
      </Group>
      <Text size="sm">
        {t('credentials.intro')}
      </Text>
      {!canWrite && (
        <Alert color="gray" data-testid="apikey-guest-note">
          {t('credentials.guestNote')}
        </Alert>
      )}
      <Paper withBorder p="sm">
        {keys.isError ? (
          <PageError error={keys.error} onRetry={() => void keys.refetch()} />
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table striped highlightOnHover verticalSpacing="xs" data-testid="apikey-table" aria-busy={keys.isFetching}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('credentials.name')}</Table.Th>
                  <Table.Th>{t('credentials.prefix')}</Table.Th>
                  <Table.Th>{t('credentials.createdTime')}</Table.Th>
                  <Table.Th>{t('credentials.lastUsedTime')}</Table.Th>
                  <Table.Th w={1}>{t('table.actions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((key) => (
                  <Table.Tr key={key.id} data-testid="apikey-row">
                    <Table.Td>{key.name}</Table.Td>
                    <Table.Td>
                      <Code>{`${key.prefix}…`}</Code>
                    </Table.Td>
                    <Table.Td>{formatDateTime(key.created_time, i18n.language)}</Table.Td>
                    <Table.Td>{formatDateTime(key.last_used_time, i18n.language) ?? t('credentials.neverUsed')}</Table.Td>
                    <Table.Td>
                      <Tooltip label={t('credentials.revoke')}>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={t('credentials.revokeNamed', { name: key.name })}
                          onClick={() => confirmRevoke(key)}
                          data-testid="apikey-revoke"
                        >
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {keys.isPending && (
              <Text ta="center" py="xl">
                {t('common.loading')}
              </Text>
            )}
            {keys.isSuccess && rows.length === 0 && (
              <Text ta="center" py="xl" data-testid="apikey-empty">
                {t('credentials.empty')}
              </Text>
            )}
          </Table.ScrollContainer>
        )}
      </Paper>
      {creating && (
        <CreateKeyModal
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            setSecretOpened(true);
          }}
        />
      )}
      <SecretModal
        created={created}
        opened={secretOpened}
        onClose={() => {
          setSecretOpened(false);
          // The key is forgotten once the modal has closed: it is never shown again.
          setTimeout(() => setCreated(null), MODAL_CLOSE_MS);
        }}
      />
    </Stack>
  );
}
