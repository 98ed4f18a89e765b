import { Divider, Group, LoadingOverlay, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { FeatureName, Integrations, Tenant } from '@voxplan/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { showError } from '../../lib/errors.ts';
import { focusFirstInvalid } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { PageError } from '../../lib/PageError.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useFeatures } from '../../lib/use-features.ts';

export const SECOND_AI_FLAG = 'feature_second_ai_provider' satisfies FeatureName;

interface Values {
  voice: boolean;
  twilio_sid: string;
  twilio_token: string;
  ai: boolean;
  openai_key: string;
  secondAi: boolean;
  sippulse_ai_key: string;
}

function valuesOf(integrations: Integrations): Values {
  return {
    voice: Boolean(integrations.twilio_sid),
    twilio_sid: integrations.twilio_sid ?? '',
    twilio_token: integrations.twilio_token ?? '',
    ai: Boolean(integrations.openai_key),
    openai_key: integrations.openai_key ?? '',
    secondAi: Boolean(integrations.sippulse_ai_key),
    sippulse_ai_key: integrations.sippulse_ai_key ?? '',
  };
}

/** Only the enabled providers' fields are sent (spec section 7); a provider left out is switched off. */
export function integrationsPayload(values: Values, secondAiEnabled: boolean): Integrations {
  return {
    ...(values.voice && { twilio_sid: values.twilio_sid.trim(), twilio_token: values.twilio_token.trim() }),
    ...(values.ai && { openai_key: values.openai_key.trim() }),
    ...(secondAiEnabled && values.secondAi && { sippulse_ai_key: values.sippulse_ai_key.trim() }),
  };
}

function IntegrationsForm({ tenant, initial, secondAiEnabled, onClose }: { tenant: Tenant; initial: Integrations; secondAiEnabled: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [saving, setSaving] = useState(false);
  const required = (on: boolean, value: string) => (on && !value.trim() ? t('validation.required') : null);
  const form = useForm<Values>({
    initialValues: valuesOf(initial),
    validate: {
      twilio_sid: (value, values) => required(values.voice, value),
      twilio_token: (value, values) => required(values.voice, value),
      openai_key: (value, values) => required(values.ai, value),
      sippulse_ai_key: (value, values) => required(secondAiEnabled && values.secondAi, value),
    },
  });

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      try {
        await api.patch(`/tenants/${tenant.id}/integrations`, integrationsPayload(values, secondAiEnabled));
        await queryClient.invalidateQueries({ queryKey: ['/tenants'] });
        // The audio screen's AI voices come with the tenant's AI key.
        await queryClient.invalidateQueries({ queryKey: ['audio-voices', tenant.id] });
        toast('success', t('integrations.saved'));
        onClose();
      } catch (error) {
        showError(error, t);
      } finally {
        setSaving(false);
      }
    },
    () => focusFirstInvalid(formRef.current),
  );

  const { voice, ai, secondAi } = form.getValues();
  return (
    <form ref={formRef} onSubmit={submit} noValidate>
      <Stack>
        <Switch label={t('integrations.voiceProvider')} {...form.getInputProps('voice', { type: 'checkbox' })} data-testid="switch-voice" />
        {voice && (
          <Group grow align="flex-start">
            <TextInput label={t('integrations.twilioSid')} {...form.getInputProps('twilio_sid')} data-testid="twilio-sid" />
            <PasswordInput label={t('integrations.twilioToken')} {...form.getInputProps('twilio_token')} data-testid="twilio-token" />
          </Group>
        )}
        <Divider />
        <Switch label={t('integrations.aiProvider')} {...form.getInputProps('ai', { type: 'checkbox' })} data-testid="switch-ai" />
        {ai && <PasswordInput label={t('integrations.openaiKey')} {...form.getInputProps('openai_key')} data-testid="openai-key" />}
        {secondAiEnabled && (
          <>
            <Divider />
            <Switch label={t('integrations.secondAiProvider')} {...form.getInputProps('secondAi', { type: 'checkbox' })} data-testid="switch-second-ai" />
            {secondAi && <PasswordInput label={t('integrations.secondAiKey')} {...form.getInputProps('sippulse_ai_key')} data-testid="second-ai-key" />}
          </>
        )}
        <FormActions onCancel={onClose} submitting={saving} submitTestId="integrations-save" disabled={!form.isDirty()} />
      </Stack>
    </form>
  );
}

/** The tenant's integrations in a medium modal that loads them when it opens (spec section 2). */
export function IntegrationsModal({ tenant, onClose }: { tenant: Tenant | null; onClose(): void }) {
  const { t } = useTranslation();
  const integrations = useQuery({
    queryKey: ['/tenants', tenant?.id, 'integrations'],
    queryFn: ({ signal }) => api.get<Integrations>(`/tenants/${tenant!.id}/integrations`, { signal }),
    enabled: tenant !== null,
    gcTime: 0,
  });
  const features = useFeatures({ enabled: tenant !== null });
  const secondAiEnabled = features.isOn(SECOND_AI_FLAG);
  const [formKey, setFormKey] = useState(0);
  useEffect(() => setFormKey((key) => key + 1), [integrations.dataUpdatedAt]);

  return (
    <AppModal opened={tenant !== null} onClose={onClose} size="lg" title={`${t('tenants.integrations')} · ${tenant?.name ?? ''}`}>
      {integrations.isError ? (
        <PageError error={integrations.error} onRetry={() => void integrations.refetch()} />
      ) : integrations.data && features.isFetched && tenant ? (
        <IntegrationsForm key={formKey} tenant={tenant} initial={integrations.data} secondAiEnabled={secondAiEnabled} onClose={onClose} />
      ) : (
        <LoadingOverlay visible />
      )}
    </AppModal>
  );
}
