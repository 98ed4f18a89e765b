import { Grid, NumberInput, Select, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type Campaign, campaignCreateSchema, campaignLimits, campaignRetryOutcomes, campaignUpdateSchema, type PhoneNumber } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api } from '../../lib/api/client.ts';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { FormSection } from '../../lib/forms/FormSection.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { useReferenceList } from '../visual-plans/editor/editor-context.tsx';
import { type CampaignValues, initialValues, toInput } from './form-values.ts';
import { CAMPAIGNS, callingProviders, isStarted } from './status.ts';

/** The tenant's numbers a campaign can reach people from: not a web chat's (docs/campaigns.md). */
function useCallingNumbers(tenantId: number) {
  return useQuery({
    queryKey: ['/numbers', tenantId, 'campaign-picker'],
    queryFn: ({ signal }) =>
      api.get<PhoneNumber[]>('/numbers', { query: { filter: { where: { provider: { inq: callingProviders } }, order: ['number ASC'], limit: 1000 } }, signal, tenantId }),
    staleTime: 30_000,
    select: (numbers) => numbers.map((number) => ({ value: String(number.id), label: number.description ? `${number.number} · ${number.description}` : number.number })),
  });
}

/**
 * Create (no campaign) or edit a campaign: its name, the plan it runs and the number it calls
 * from (fixed once started), the schedule, the pace, retries per outcome and machine detection.
 * A finished campaign, and any for a guest, opens read-only.
 */
export function CampaignFormModal({ campaign, onClose, onCreated }: { campaign?: Campaign; onClose(): void; onCreated?(campaign: Campaign): void }) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!campaign);
  const { create, update } = useResourceMutations<Campaign, Record<string, unknown>>(CAMPAIGNS, { createIn: tenant.tenantId });
  const started = campaign !== undefined && isStarted(campaign.status);
  const finished = campaign?.status === 'completed' || campaign?.status === 'cancelled';
  const schema = useMemo(
    () => z.preprocess((values) => toInput(values as Partial<CampaignValues>, { fixedPlanAndNumber: started }), campaign ? campaignUpdateSchema : campaignCreateSchema),
    [campaign, started],
  );
  const { form, formRef, onSubmit, submitting } = useSchemaForm<CampaignValues>({
    schema,
    tenant,
    initialValues: initialValues(campaign),
    submit: (values) => {
      const input = toInput(values, { fixedPlanAndNumber: started });
      return campaign ? update.mutateAsync({ id: campaign.id, input }) : create.mutateAsync(input);
    },
    onSuccess: (saved) => {
      toast('success', t(campaign ? 'campaigns.edited' : 'campaigns.created'));
      if (!campaign && onCreated) onCreated(saved as Campaign);
      else onClose();
    },
  });
  const recordTenant = campaign?.tenant_id ?? tenant.tenantId ?? api.tenantId ?? 0;
  const pickersWaiting = tenant.needed && tenant.tenantId === undefined;
  const plans = useReferenceList('plan', recordTenant);
  const dateRanges = useReferenceList('date_range', recordTenant);
  const numbers = useCallingNumbers(recordTenant);
  const asOptions = (options: { value: number; label: string }[] | undefined) => (options ?? []).map((option) => ({ value: String(option.value), label: option.label }));

  return (
    <AppModal opened onClose={onClose} size="xl" title={useDialogTitle('campaigns', campaign ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <fieldset disabled={finished} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
          <Stack>
            <TenantChoiceField choice={tenant} />
            <TextInput label={t('campaigns.name')} withAsterisk autoComplete="off" maxLength={campaignLimits.name} {...form.getInputProps('name')} data-testid="campaign-name" />
            <FormSection title={t('campaigns.whatItRuns')} hint={t(started ? 'campaigns.fixedWhenStarted' : 'campaigns.fromNumberHint')}>
              <Grid>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Select
                    label={t('campaigns.plan')}
                    withAsterisk
                    searchable
                    disabled={pickersWaiting || started}
                    data={asOptions(plans.data)}
                    {...form.getInputProps('plan_id')}
                    data-testid="campaign-plan"
                  />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Select
                    label={t('campaigns.fromNumber')}
                    withAsterisk
                    searchable
                    disabled={pickersWaiting || started}
                    data={numbers.data ?? []}
                    nothingFoundMessage={t('campaigns.noCallingNumber')}
                    {...form.getInputProps('number_id')}
                    data-testid="campaign-number"
                  />
                </Grid.Col>
              </Grid>
            </FormSection>
            <Select
              label={t('campaigns.schedule')}
              description={t('campaigns.scheduleHint')}
              placeholder={t('campaigns.anyTime')}
              clearable
              clearButtonProps={{ 'aria-label': t('campaigns.clearSchedule') }}
              searchable
              disabled={pickersWaiting}
              data={asOptions(dateRanges.data)}
              {...form.getInputProps('date_range_id')}
              data-testid="campaign-schedule"
            />
            <FormSection title={t('campaigns.pace')} hint={t('campaigns.paceHint')}>
              <Grid>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <NumberInput
                    label={t('campaigns.callsPerSecond')}
                    withAsterisk
                    min={campaignLimits.callsPerSecond.min}
                    max={campaignLimits.callsPerSecond.max}
                    step={0.5}
                    decimalScale={1}
                    {...form.getInputProps('calls_per_second')}
                    data-testid="campaign-cps"
                  />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <NumberInput
                    label={t('campaigns.maxConcurrent')}
                    withAsterisk
                    min={campaignLimits.maxConcurrent.min}
                    max={campaignLimits.maxConcurrent.max}
                    allowDecimal={false}
                    {...form.getInputProps('max_concurrent')}
                    data-testid="campaign-concurrent"
                  />
                </Grid.Col>
              </Grid>
            </FormSection>
            <FormSection title={t('campaigns.retries')} hint={t('campaigns.retriesHint')}>
              <Table verticalSpacing={4} data-testid="campaign-retries">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('campaigns.outcome')}</Table.Th>
                    <Table.Th>{t('campaigns.attempts')}</Table.Th>
                    <Table.Th>{t('campaigns.delayMin')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {campaignRetryOutcomes.map((outcome) => (
                    <Table.Tr key={outcome}>
                      <Table.Td>
                        <Text size="sm">{t(`campaigns.outcomes.${outcome}`)}</Text>
                      </Table.Td>
                      <Table.Td>
                        <NumberInput
                          aria-label={t('campaigns.attemptsOf', { outcome: t(`campaigns.outcomes.${outcome}`) })}
                          min={campaignLimits.attempts.min}
                          max={campaignLimits.attempts.max}
                          allowDecimal={false}
                          {...form.getInputProps(`retries.${outcome}.attempts`)}
                          data-testid={`campaign-retry-${outcome}-attempts`}
                        />
                      </Table.Td>
                      <Table.Td>
                        <NumberInput
                          aria-label={t('campaigns.delayOf', { outcome: t(`campaigns.outcomes.${outcome}`) })}
                          min={campaignLimits.delayMin.min}
                          max={campaignLimits.delayMin.max}
                          allowDecimal={false}
                          {...form.getInputProps(`retries.${outcome}.delay_min`)}
                          data-testid={`campaign-retry-${outcome}-delay`}
                        />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </FormSection>
            <Switch
              label={t('campaigns.machineDetection')}
              description={t('campaigns.machineDetectionHint')}
              {...form.getInputProps('machine_detection', { type: 'checkbox' })}
              data-testid="campaign-amd"
            />
            {!finished && <FormActions onCancel={onClose} submitting={submitting} submitTestId="campaign-save" />}
          </Stack>
        </fieldset>
      </form>
    </AppModal>
  );
}
