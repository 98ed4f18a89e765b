import { Group, Stack, Textarea, TextInput } from '@mantine/core';
import { type Configuration, type ConfigurationCreate, type ConfigurationUpdate, configurationCreateSchema, configurationUpdateSchema, systemSettingType } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal } from '../../lib/AppModal.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';

// The contract's defaults, applied by the server when the field is left empty.
const DEFAULT_TYPE = 'custom';
const DEFAULT_CATEGORY = 'general';

type CreateValues = Required<ConfigurationCreate>;
type UpdateValues = Required<ConfigurationUpdate>;

/** Create (no setting) or edit (a setting); name and type are chosen on creation only. */
export function SettingFormModal({ setting, opened, onClose }: { setting?: Configuration; opened: boolean; onClose(): void }) {
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
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} size="lg" title={t(setting ? 'settings.editTitle' : 'settings.createTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          {setting ? (
            <Group grow align="flex-start">
              <TextInput label={t('settings.name')} value={setting.name} disabled data-testid="setting-name" />
              <TextInput label={t('settings.type')} value={setting.type} disabled data-testid="setting-type" />
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
                description={t('settings.typeHint', { value: DEFAULT_TYPE })}
                autoComplete="off"
                {...form.getInputProps('type')}
                data-testid="setting-type"
              />
            </Group>
          )}
          <Textarea label={t('settings.value')} autosize minRows={2} maxRows={10} {...form.getInputProps('value')} data-testid="setting-value" />
          <TextInput
            label={t('settings.category')}
            description={setting ? undefined : t('settings.categoryHint', { value: DEFAULT_CATEGORY })}
            autoComplete="off"
            {...form.getInputProps('category')}
            data-testid="setting-category"
          />
          <Textarea label={t('settings.description')} autosize minRows={2} maxRows={6} {...form.getInputProps('description')} data-testid="setting-description" />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="setting-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
