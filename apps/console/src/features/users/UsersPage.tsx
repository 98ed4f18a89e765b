import { Badge, Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { User } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth.tsx';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { UserFormModal } from './UserFormModal.tsx';

function RoleBadge({ user }: { user: User }) {
  const { t } = useTranslation();
  const role = user.roles[0]?.role;
  return <Badge variant="light">{role ? t(`roles.${role}`) : t('common.none')}</Badge>;
}

// The role comes from the roles list, which the API cannot sort or filter by.
const columns: Column<User>[] = [
  { field: 'name', labelKey: 'users.name', type: 'text' },
  { field: 'username', labelKey: 'users.username', type: 'text' },
  { field: 'email', labelKey: 'users.email', type: 'text' },
  { field: 'role', labelKey: 'users.role', type: 'text', sortable: false, filterable: false, render: (user) => <RoleBadge user={user} /> },
  { field: 'created_time', labelKey: 'users.createdTime', type: 'date' },
];

const searchFields = ['name', 'username', 'email'];

export default function UsersPage() {
  const { t } = useTranslation();
  const { profile } = useAuth();
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const removeRow = useRemoveRow('/users');

  // Spec section 5: a user cannot remove themselves, so their own row offers no remove button.
  const isRemovable = (user: User) => user.id !== profile?.id;

  return (
    <>
      <DataTable<User>
        tableId="users"
        resource="/users"
        titleKey="nav.users"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={isRemovable}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="user-new">
            {t('users.new')}
          </Button>
        }
        rowActions={(user) => <EditRemoveActions testIdPrefix="user" onEdit={() => setEditing(user)} onRemove={isRemovable(user) ? () => removeRow(user.id) : undefined} />}
      />
      {editing !== null && <UserFormModal user={editing === 'new' ? undefined : editing} opened onClose={() => setEditing(null)} />}
    </>
  );
}
