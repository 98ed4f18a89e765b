import { PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type RoleName, roleNames, rolesFromForm, type Tenant, type User, type UserCreate, type UserForm, type UserUpdate, userFormSchema } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { api } from '../../lib/api/client.ts';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { errorText } from '../../lib/errors.ts';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';

type Values = {
  username: string;
  name: string;
  email: string;
  password: string;
  role: RoleName;
  tenant_id: number | null;
};

function initialValues(user: User | undefined): Values {
  const first = user?.roles[0];
  return {
    username: user?.username ?? '',
    name: user?.name ?? '',
    email: user?.email ?? '',
    password: '',
    role: first?.role ?? 'user',
    tenant_id: first?.role === 'admin' ? null : (first?.tenant_id ?? null),
  };
}

/** Tenants to choose from; cached under the tenants resource so that tenant changes refresh it. */
function useTenantOptions() {
  return useQuery({
    queryKey: ['/tenants', 'options'],
    queryFn: ({ signal }) => api.get<Tenant[]>('/tenants', { query: { filter: { order: ['name ASC'], limit: 1000 } }, signal }),
  });
}

/** Create (no user) or edit (a user): one role and, except for admins, its tenant (spec section 3). */
export function UserFormModal({ user, opened, onClose }: { user?: User; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { create, update } = useResourceMutations<User, UserCreate | UserUpdate>('/users');
  const tenants = useTenantOptions();

  // The contract's form schema; a new user needs a password, and users and guests need a tenant.
  const schema = useMemo(
    () => {
      const base: z.ZodType<UserForm> = user ? userFormSchema : userFormSchema.required({ password: true });
      return base.refine((values) => values.role === 'admin' || (values.tenant_id !== undefined && values.tenant_id !== null), {
        path: ['tenant_id'],
        // The form translates a refinement's message only when it is "required" (else "Invalid format").
        message: 'required',
        // Checked along with the other fields, so that every missing one shows on the first submit.
        when: () => true,
      });
    },
    [user],
  );

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema,
    initialValues: initialValues(user),
    submit: (values) => {
      const role = values.role ?? 'user';
      const common = {
        username: values.username ?? '',
        name: values.name ?? '',
        email: values.email ?? '',
        roles: rolesFromForm({ role, tenant_id: values.tenant_id ?? null }),
      };
      return user
        ? update.mutateAsync({ id: user.id, input: { ...common, ...(values.password && { password: values.password }) } })
        : create.mutateAsync({ ...common, password: values.password ?? '' });
    },
    onSuccess: () => {
      toast('success', t(user ? 'users.edited' : 'users.created'));
      onClose();
    },
  });

  const { role, tenant_id: tenantId } = form.getValues();
  const tenantProps = form.getInputProps('tenant_id');
  const tenantData = (tenants.data ?? []).map((tenant) => ({ value: String(tenant.id), label: tenant.name }));

  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} size="md" title={useDialogTitle('users', user ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput label={t('users.username')} autoComplete="off" withAsterisk {...form.getInputProps('username')} data-testid="user-username" />
          <TextInput label={t('users.name')} autoComplete="off" withAsterisk {...form.getInputProps('name')} data-testid="user-name" />
          <TextInput label={t('users.email')} type="email" autoComplete="off" withAsterisk {...form.getInputProps('email')} data-testid="user-email" />
          <PasswordInput
            label={t('users.password')}
            description={user ? t('users.passwordKeep') : undefined}
            autoComplete="new-password"
            withAsterisk={!user}
            {...form.getInputProps('password')}
            data-testid="user-password"
          />
          <Select
            label={t('users.role')}
            withAsterisk
            data={roleNames.map((value) => ({ value, label: t(`roles.${value}`) }))}
            allowDeselect={false}
            {...form.getInputProps('role')}
            onChange={(value) => {
              const next = (value ?? 'user') as RoleName;
              form.setFieldValue('role', next);
              // Spec section 3: an admin belongs to no tenant.
              if (next === 'admin') form.setFieldValue('tenant_id', null);
            }}
            data-testid="user-role"
          />
          {role !== 'admin' && (
            <Select
              label={t('users.tenant')}
              placeholder={t('users.tenantPlaceholder')}
              withAsterisk
              searchable
              nothingFoundMessage={t('users.noTenants')}
              data={tenantData}
              error={tenantProps.error ?? (tenants.isError ? errorText(tenants.error, t) : undefined)}
              onFocus={tenantProps.onFocus}
              onBlur={tenantProps.onBlur}
              value={tenantId === null ? null : String(tenantId)}
              onChange={(value) => form.setFieldValue('tenant_id', value === null ? null : Number(value))}
              data-testid="user-tenant"
            />
          )}
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="user-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
