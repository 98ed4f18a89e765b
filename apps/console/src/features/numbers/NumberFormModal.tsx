import { Button, Grid, Select, Stack, Textarea, TextInput } from '@mantine/core';
import {
  missingWhatsappFields,
  numberCreateSchema,
  numberLimits,
  numberMessages,
  numberProviders,
  numberUpdateSchema,
  type NumberProvider,
  type PhoneNumber,
} from '@voxplan/contracts';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api } from '../../lib/api/client.ts';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { FormSection } from '../../lib/forms/FormSection.tsx';
import { MaskedInput } from '../../lib/forms/MaskedInput.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { useReferenceList } from '../visual-plans/editor/editor-context.tsx';
import { initialValues, type NumberValues, toInput } from './form-values.ts';
import { providerLabelKey } from './providers.ts';
import { RulesEditor } from './RulesEditor.tsx';
import { WebchatSection } from './WebchatSection.tsx';
import { WhatsappSection } from './WhatsappSection.tsx';

/** The number's own plans, one per channel. */
const planFields = [
  { field: 'voice_plan_id', labelKey: 'numbers.voicePlan', testId: 'number-voice-plan' },
  { field: 'chat_plan_id', labelKey: 'numbers.chatPlan', testId: 'number-chat-plan' },
] as const;

/**
 * Create (no number) or edit (a number): the number (a web chat's name) and its provider, the
 * plans it runs, its rules, for WhatsApp what Meta needs, and for the web chat its origins, pre-chat
 * fields, key, tag and identity key. Pickers list the plans and date ranges of the number's tenant.
 * A web chat just created stays open on the saved number (`onCreated`), so that its tag is there
 * to copy at once.
 */
export function NumberFormModal({
  number,
  opened,
  onClose,
  onCreated,
  justCreated = false,
}: {
  number?: PhoneNumber;
  opened: boolean;
  onClose(): void;
  onCreated?(saved: PhoneNumber): void;
  justCreated?: boolean;
}) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!number);
  const { create, update } = useResourceMutations<PhoneNumber, Record<string, unknown>>('/numbers', { createIn: tenant.tenantId });
  // Which button submitted: a WhatsApp number may be saved as a draft, without what Meta needs.
  const asDraft = useRef(false);
  // The form speaks strings for its pickers; the contract is checked on the body they make, and a
  // WhatsApp number that is not a draft needs Meta's fields (as the server checks on the number it would store).
  const schema = useMemo(
    () =>
      z
        .preprocess((values) => toInput(values as Partial<NumberValues>), number ? numberUpdateSchema : numberCreateSchema)
        .superRefine((input, ctx) => {
          if (asDraft.current) return;
          for (const field of missingWhatsappFields(input as Parameters<typeof missingWhatsappFields>[0])) {
            ctx.addIssue({ code: 'custom', path: [field], message: numberMessages.whatsappRequired });
          }
        }),
    [number],
  );
  const { form, formRef, onSubmit, submitting } = useSchemaForm<NumberValues>({
    schema,
    tenant,
    initialValues: initialValues(number),
    submit: (values) => {
      const input = { ...toInput(values), ...(asDraft.current && { draft: true }) };
      return number ? update.mutateAsync({ id: number.id, input }) : create.mutateAsync(input);
    },
    onSuccess: (saved) => {
      const created = saved as PhoneNumber;
      if (!number && created.provider === 'webchat' && onCreated) {
        onCreated(created);
        return;
      }
      if (missingWhatsappFields(created).length > 0) toast('warning', t('numbers.draftSaved'));
      else toast('success', t(number ? 'numbers.edited' : 'numbers.created'));
      onClose();
    },
  });
  // The records a picker offers are the number's tenant's: an administrator on all tenants picks that tenant first.
  const recordTenant = number?.tenant_id ?? tenant.tenantId ?? api.tenantId ?? 0;
  const pickersWaiting = tenant.needed && tenant.tenantId === undefined;
  const plans = useReferenceList('plan', recordTenant);
  const dateRanges = useReferenceList('date_range', recordTenant);
  const planData = (plans.data ?? []).map((plan) => ({ value: String(plan.value), label: plan.label }));
  const values = form.getValues();

  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} size="xl" title={useDialogTitle('numbers', number ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <Grid>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              {values.provider === 'webchat' ? (
                <TextInput
                  label={t('numbers.webchatName')}
                  description={t('numbers.webchatNameHint')}
                  placeholder={t('numbers.webchatNamePlaceholder')}
                  withAsterisk
                  autoComplete="off"
                  maxLength={numberLimits.webchatName}
                  {...form.getInputProps('number')}
                  data-testid="number-number"
                />
              ) : (
                <MaskedInput
                  mask="e164"
                  label={t('numbers.number')}
                  description={t('numbers.numberHint')}
                  placeholder="+5511400000000"
                  withAsterisk
                  autoComplete="off"
                  maxLength={16}
                  {...form.getInputProps('number')}
                  value={values.number}
                  data-testid="number-number"
                />
              )}
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <Select
                label={t('numbers.provider')}
                withAsterisk
                allowDeselect={false}
                data={numberProviders.map((value) => ({ value, label: t(providerLabelKey(value)) }))}
                {...form.getInputProps('provider')}
                onChange={(value) => form.setFieldValue('provider', (value ?? 'twilio') as NumberProvider)}
                data-testid="number-provider"
              />
            </Grid.Col>
          </Grid>
          <Textarea
            label={t('numbers.description')}
            autosize
            minRows={2}
            maxRows={6}
            maxLength={numberLimits.description}
            {...form.getInputProps('description')}
            data-testid="number-description"
          />
          <FormSection title={t('numbers.plans')} hint={t('numbers.plansHint')}>
            <Grid>
              {planFields.map(({ field, labelKey, testId }) => (
                <Grid.Col key={field} span={{ base: 12, sm: 6 }}>
                  <Select
                    label={t(labelKey)}
                    placeholder={t('numbers.noPlan')}
                    clearable
                    clearButtonProps={{ 'aria-label': t('numbers.clearChoice') }}
                    searchable
                    disabled={pickersWaiting}
                    data={planData}
                    {...form.getInputProps(field)}
                    data-testid={testId}
                  />
                </Grid.Col>
              ))}
            </Grid>
          </FormSection>
          <FormSection title={t('numbers.rules')} hint={t('numbers.rulesHint')}>
            <RulesEditor form={form} plans={plans.data} dateRanges={dateRanges.data} disabled={pickersWaiting} />
          </FormSection>
          {values.provider === 'whatsapp' && (
            <FormSection title={t('numbers.whatsapp')} hint={t('numbers.whatsappHint')}>
              <WhatsappSection form={form} number={number} isDraft={number !== undefined && missingWhatsappFields(number).length > 0} />
            </FormSection>
          )}
          {values.provider === 'webchat' && (
            <FormSection title={t('numbers.webchat')} hint={t('numbers.webchatHint')}>
              <WebchatSection form={form} number={number} justCreated={justCreated} />
            </FormSection>
          )}
          <FormActions
            onCancel={onClose}
            submitting={submitting}
            submitTestId="number-save"
            onSubmitClick={() => (asDraft.current = false)}
            extra={
              values.provider === 'whatsapp' && (
                <Button type="submit" variant="default" disabled={submitting} onClick={() => (asDraft.current = true)} data-testid="number-save-draft">
                  {t('numbers.saveDraft')}
                </Button>
              )
            }
          />
        </Stack>
      </form>
    </AppModal>
  );
}
