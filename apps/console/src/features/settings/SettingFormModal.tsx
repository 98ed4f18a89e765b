import { Group, NumberInput, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import {
  type Configuration,
  type ConfigurationCreate,
  type ConfigurationUpdate,
  configurationCreateSchema,
  configurationUpdateSchema,
  parseSettingValue,
  type SystemSettingDefinition,
  systemSettingNamed,
  systemSettingType,
} from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { categoryLabel, DEFAULT_CATEGORY, DEFAULT_TYPE, typeLabel } from './labels.ts';


type CreateValues = Required<ConfigurationCreate>;
type UpdateValues = Required<ConfigurationUpdate>;
/** A system setting's value as its input holds it: a number ('' while empty), a switch, or text. */
type SystemValues = { value: number | boolean | string };

/** What the value of a system setting may be, checked in the browser as the server checks it. */
function systemValueSchema(definition: SystemSettingDefinition): z.ZodType {
  if (definition.kind === 'number') return z.object({ value: z.number().min(definition.min).max(definition.max) });
  if (definition.kind === 'boolean') return z.object({ value: z.boolean() });
  if (definition.kind === 'url') return z.object({ value: z.string().optional().refine((value) => parseSettingValue(definition, value ?? '') !== undefined, 'invalidHttpUrl') });
  return configurationUpdateSchema.pick({ value: true });
}

/** The form of a system setting: only its value changes, through the input its kind calls for. */
function SystemSettingForm({ setting, definition, onClose }: { setting: Configuration; definition: SystemSettingDefinition; onClose(): void }) {
  const { t } = useTranslation();
  const { update } = useResourceMutations<Configuration, ConfigurationUpdate>('/configurations');
  const stored = parseSettingValue(definition, setting.value);
  const { form, formRef, onSubmit, submitting } = useSchemaForm<SystemValues>({
    schema: systemValueSchema(definition),
    // A stored value its kind cannot read (kept from before values were checked) starts the input empty.
    initialValues: { value: stored ?? (definition.kind === 'boolean' ? false : '') },
    submit: (values) => update.mutateAsync({ id: setting.id, input: { value: String(values.value ?? '') } }),
    onSuccess: () => {
      toast('success', t('settings.edited'));
      onClose();
    },
  });

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate>
      <Stack>
        <Group grow align="flex-start">
          <TextInput label={t('settings.name')} value={setting.name} disabled data-testid="setting-name" />
          <TextInput label={t('settings.type')} value={typeLabel(setting.type, t)} disabled data-testid="setting-type" />
        </Group>
        {definition.kind === 'number' && (
          <NumberInput
            label={t('settings.value')}
            description={t('settings.range', { min: definition.min, max: definition.max })}
            min={definition.min}
            max={definition.max}
            // Clamping would change what the user typed without a word; the message says what is allowed.
            clampBehavior="none"
            decimalSeparator="."
            {...form.getInputProps('value')}
            data-testid="setting-value"
          />
        )}
        {definition.kind === 'boolean' && (
          <Switch label={t('settings.value')} {...form.getInputProps('value', { type: 'checkbox' })} data-testid="setting-value" />
        )}
        {definition.kind === 'url' && <TextInput label={t('settings.value')} placeholder={t('settings.urlPlaceholder')} {...form.getInputProps('value')} data-testid="setting-value" />}
        {definition.kind === 'text' && (
          <Textarea label={t('settings.value')} autosize minRows={2} maxRows={10} {...form.getInputProps('value')} data-testid="setting-value" />
        )}
        <TextInput label={t('settings.category')} value={categoryLabel(setting.category, t)} disabled data-testid="setting-category" />
        <Textarea label={t('settings.description')} value={t(definition.descriptionKey)} autosize disabled data-testid="setting-description" />
        <FormActions onCancel={onClose} submitting={submitting} submitTestId="setting-save" />
      </Stack>
    </form>
  );
}

/** Create or edit a setting of the administrator's own; name and type are chosen on creation only. */
function CustomSettingForm({ setting, onClose }: { setting?: Configuration; onClose(): void }) {
  const { t } = useTranslation();
  const { create, update } = useResourceMutations<Configuration, Partial<CreateValues>>('/configurations');

  // The server keeps the "sistema" type for the settings the installation brings.
  const schema = useMemo(
    () =>
      setting
        ? configurationUpdateSchema
        : configurationCreateSchema.superRefine((values, ctx) => {
            if (values.type !== systemSettingType) return;
            // Not a "custom" issue: the form would show those as "Invalid format"; this one keeps its message.
            ctx.addIssue({ code: 'invalid_value', values: [], input: values.type, path: ['type'], message: t('settings.typeReserved', { type: systemSettingType }) });
          }),
    [setting, t],
  );

  const { form, formRef, onSubmit, submitting } = useSchemaForm<CreateValues | UpdateValues>({
    schema,
    initialValues: setting
      ? { value: setting.value, category: setting.category, description: setting.description }
      : { name: '', value: '', category: '', description: '', type: '' },
    submit: (values) => {
      if (!setting) return create.mutateAsync(values);
      return update.mutateAsync({ id: setting.id, input: values as UpdateValues });
    },
    onSuccess: () => {
      toast('success', t(setting ? 'settings.edited' : 'settings.created'));
      onClose();
    },
  });

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate>
      <Stack>
        {setting ? (
          <Group grow align="flex-start">
            <TextInput label={t('settings.name')} value={setting.name} disabled data-testid="setting-name" />
            <TextInput label={t('settings.type')} value={typeLabel(setting.type, t)} disabled data-testid="setting-type" />
          </Group>
        ) : (
          <Group grow align="flex-start">
            <TextInput
              label={t('settings.name')}
              description={t('settings.nameHint')}
              withAsterisk
              autoComplete="off"
              {...form.getInputProps('name')}
              data-testid="setting-name"
            />
            <TextInput
              label={t('settings.type')}
              description={t('settings.typeHint', { value: typeLabel(DEFAULT_TYPE, t) })}
              autoComplete="off"
              {...form.getInputProps('type')}
              data-testid="setting-type"
            />
          </Group>
        )}
        <Textarea label={t('settings.value')} autosize minRows={2} maxRows={10} {...form.getInputProps('value')} data-testid="setting-value" />
        <TextInput
          label={t('settings.category')}
          description={setting ? undefined : t('settings.categoryHint', { value: categoryLabel(DEFAULT_CATEGORY, t) })}
          autoComplete="off"
          {...form.getInputProps('category')}
          data-testid="setting-category"
        />
        <Textarea label={t('settings.description')} autosize minRows={2} maxRows={6} {...form.getInputProps('description')} data-testid="setting-description" />
        <FormActions onCancel={onClose} submitting={submitting} submitTestId="setting-save" />
      </Stack>
    </form>
  );
}

/**
 * Create (no setting) or edit (a setting). A system setting takes the input of its kind in the
 * registry (a number within its range, a switch, text); the others are free text.
 */
export function SettingFormModal({ setting, opened, onClose }: { setting?: Configuration; opened: boolean; onClose(): void }) {
  const definition = setting ? systemSettingNamed(setting.name) : undefined;
  return (
    <AppModal opened={opened} onClose={onClose} size="lg" title={useDialogTitle('settings', setting ? 'edit' : 'create')}>
      {setting && definition ? <SystemSettingForm setting={setting} definition={definition} onClose={onClose} /> : <CustomSettingForm setting={setting} onClose={onClose} />}
    </AppModal>
  );
}
