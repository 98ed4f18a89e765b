import { ActionIcon, Button, Tooltip } from '@mantine/core';
import { IconPlugConnected, IconPlus } from '@tabler/icons-react';
import type { Tenant } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth.tsx';
import { toast } from '../../lib/notify.ts';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { IntegrationsModal } from './IntegrationsModal.tsx';
import { TenantFormModal } from './TenantFormModal.tsx';

const columns: Column<Tenant>[] = [
  { field: 'name', labelKey: 'tenants.name', type: 'text' },
  { field: 'created_time', labelKey: 'tenants.createdTime', type: 'date' },
];

export default function TenantsPage() {
  const { t } = useTranslation();
  const { tenantId } = useAuth();
  const [editing, setEditing] = useState<Tenant | 'new' | null>(null);
  const [integrationsOf, setIntegrationsOf] = useState<Tenant | null>(null);
  const removeRow = useRemoveRow('/tenants');

  // Spec section 5: the tenant the admin is working in cannot be removed.
  const isRemovable = (tenant: Tenant) => tenant.id !== tenantId;

  const confirmRemove = (tenant: Tenant) => {
    if (!isRemovable(tenant)) {
      toast('warning', t('tenants.inUse'));
      return;
    }
    removeRow(tenant.id);
  };

  return (
    <>
      <DataTable<Tenant>
        tableId="tenants"
        resource="/tenants"
        titleKey="nav.tenants"
        columns={columns}
        searchFields={['name']}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={isRemovable}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="tenant-new">
            {t('tenants.new')}
          </Button>
        }
        rowActions={(tenant) => (
          <EditRemoveActions testIdPrefix="tenant" onEdit={() => setEditing(tenant)} onRemove={() => confirmRemove(tenant)}>
            <Tooltip label={t('tenants.integrations')}>
              <ActionIcon variant="subtle" aria-label={t('tenants.integrations')} onClick={() => setIntegrationsOf(tenant)} data-testid="tenant-integrations">
                <IconPlugConnected size={16} />
              </ActionIcon>
            </Tooltip>
          </EditRemoveActions>
        )}
      />
      {editing !== null && (
        <TenantFormModal tenant={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />
      )}
      <IntegrationsModal tenant={integrationsOf} onClose={() => setIntegrationsOf(null)} />
    </>
  );
}
