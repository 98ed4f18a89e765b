import { Alert, Button, Checkbox, Group, Stack, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { numberLimits, type PhoneNumber, webchatPrechatFields } from '@voxplan/contracts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import { showError } from '../../lib/errors.ts';
import type { NumberForm } from './form-values.ts';
import { errorUnder } from './RulesEditor.tsx';

const prechatLabelKey = { name: 'numbers.webchatPrechatName', email: 'numbers.webchatPrechatEmail' } as const;

/**
 * The web chat widget (docs/channels-webchat.md): the origins whose pages may use it, the fields it
 * asks first, and once the number is saved (right after its creation too) its public key, the
 * <script> tag to paste in those pages and its identity key.
 */
export function WebchatSection({ form, number, justCreated }: { form: NumberForm; number: PhoneNumber | undefined; justCreated: boolean }) {
  const { t } = useTranslation();
  const script = number?.webchat_script;
  const created = useRef<HTMLDivElement>(null);
  // Just saved: the tag is what the person came for, so the form shows it rather than its top.
  useEffect(() => {
    if (justCreated) created.current?.scrollIntoView({ block: 'start' });
  }, [justCreated]);
  return (
    <Stack gap="sm" data-testid="number-webchat">
      <TagsInput
        label={t('numbers.webchatOrigins')}
        description={t('numbers.webchatOriginsHint')}
        placeholder={t('numbers.webchatOriginsPlaceholder')}
        maxTags={numberLimits.webchatOrigins}
        splitChars={[',', ' ', ';']}
        clearable
        clearButtonProps={{ 'aria-label': t('numbers.clearChoice') }}
        {...form.getInputProps('webchat_origins')}
        error={errorUnder(form.errors, 'webchat_origins')}
        data-testid="number-webchat-origins"
      />
      <Checkbox.Group label={t('numbers.webchatPrechat')} description={t('numbers.webchatPrechatHint')} {...form.getInputProps('webchat_prechat')} data-testid="number-webchat-prechat">
        <Group mt={6}>
          {webchatPrechatFields.map((field) => (
            <Checkbox key={field} value={field} label={t(prechatLabelKey[field])} data-testid={`number-webchat-prechat-${field}`} />
          ))}
        </Group>
      </Checkbox.Group>
      {number?.webchat_key && script ? (
        <>
          {justCreated && (
            <Alert ref={created} color="teal" data-testid="number-webchat-created">
              {t('numbers.webchatSaved')}
            </Alert>
          )}
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <Textarea
              style={{ flex: 1 }}
              label={t('numbers.webchatScript')}
              value={script}
              readOnly
              autosize
              minRows={2}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              data-testid="number-webchat-script"
            />
            <CopyValueButton value={script} label={t('numbers.copyWebchatScript')} testId="number-webchat-script-copy" />
          </Group>
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <TextInput style={{ flex: 1 }} label={t('numbers.webchatKey')} value={number.webchat_key} readOnly data-testid="number-webchat-key" />
            <CopyValueButton value={number.webchat_key} label={t('numbers.copyWebchatKey')} testId="number-webchat-key-copy" />
          </Group>
          <IdentityKey number={number} />
        </>
      ) : (
        <Text size="sm" c="dimmed" data-testid="number-webchat-pending">
          {t('numbers.webchatAfterSave')}
        </Text>
      )}
    </Stack>
  );
}

/** The key the site signs its users' ids with: masked once made, shown whole only in the answer that makes it. */
function IdentityKey({ number }: { number: PhoneNumber }) {
  const { t } = useTranslation();
  const [made, setMade] = useState<string | null>(null);
  const make = useMutation({
    mutationFn: () => api.post<{ webchat_identity_secret: string }>(`/numbers/${number.id}/webchat-identity-secret`, {}),
    onSuccess: (answer) => setMade(answer.webchat_identity_secret),
    onError: (error) => showError(error, t),
  });
  const shown = made ?? number.webchat_identity_secret;
  return (
    <Stack gap={6} data-testid="number-webchat-identity">
      <Group gap="xs" wrap="nowrap" align="flex-end">
        {shown ? (
          <TextInput
            style={{ flex: 1 }}
            label={t('numbers.webchatIdentity')}
            description={t('numbers.webchatIdentityHint')}
            value={shown}
            readOnly
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            data-testid="number-webchat-identity-key"
          />
        ) : (
          <Stack gap={2} style={{ flex: 1 }}>
            <Text size="sm" fw={500}>
              {t('numbers.webchatIdentity')}
            </Text>
            <Text size="xs" c="dimmed">
              {t('numbers.webchatIdentityHint')}
            </Text>
            <Text size="sm" c="dimmed" data-testid="number-webchat-identity-none">
              {t('numbers.webchatIdentityNone')}
            </Text>
          </Stack>
        )}
        {made && <CopyValueButton value={made} label={t('numbers.copyWebchatIdentity')} testId="number-webchat-identity-copy" />}
      </Group>
      {made && (
        <Alert color="yellow" data-testid="number-webchat-identity-once">
          {t('numbers.webchatIdentityOnce')}
        </Alert>
      )}
      <Group>
        <Button variant="default" size="xs" loading={make.isPending} onClick={() => make.mutate()} data-testid="number-webchat-identity-make">
          {t(shown ? 'numbers.webchatIdentityRemake' : 'numbers.webchatIdentityMake')}
        </Button>
      </Group>
    </Stack>
  );
}
