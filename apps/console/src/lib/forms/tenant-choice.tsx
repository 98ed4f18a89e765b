import { Select } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAllTenants, useTenants } from '../tenants.ts';

export interface TenantChoice {
  /** An administrator on all tenants creating a record that belongs to a tenant: the form asks which. */
  needed: boolean;
  /** The tenant the create request names (its x-tenant-id); undefined: the working tenant. */
  tenantId: number | undefined;
  value: string | null;
  error: string | undefined;
  choose(value: string | null): void;
  /** Marks a missing choice on the field; answers whether the form may be sent. */
  validate(): boolean;
}

/**
 * On all tenants the server cannot tell which tenant a new record belongs to and answers
 * no_tenant_provided only after the form is filled: the form asks first. `creating` is false for
 * edits, which keep the record's own tenant.
 */
export function useTenantChoice(creating: boolean): TenantChoice {
  const { t } = useTranslation();
  const needed = useAllTenants() && creating;
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  return {
    needed,
    tenantId: needed && value ? Number(value) : undefined,
    value,
    error,
    choose(next) {
      setValue(next);
      setError(undefined);
    },
    validate() {
      const valid = !needed || value !== null;
      setError(valid ? undefined : t('validation.required'));
      return valid;
    },
  };
}

/** The required tenant field of a create form on all tenants; nothing otherwise. First in the form. */
export function TenantChoiceField({ choice }: { choice: TenantChoice }) {
  const { t } = useTranslation();
  const tenants = useTenants();
  if (!choice.needed) return null;
  return (
    <Select
      label={t('tenants.recordTenant')}
      description={t('tenants.recordTenantHint')}
      withAsterisk
      searchable
      // It takes the form's first focus: an open list would hide the fields below it.
      openOnFocus={false}
      allowDeselect={false}
      data={(tenants.data ?? []).map((tenant) => ({ value: String(tenant.id), label: tenant.name }))}
      value={choice.value}
      onChange={choice.choose}
      error={choice.error}
      data-testid="record-tenant"
    />
  );
}
