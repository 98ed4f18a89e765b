import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconCheck, IconLanguage, IconLogout } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useAuth } from '../../lib/auth.tsx';
import { mayLeave } from '../../lib/leave-guard.ts';
import { changeLocale, locales } from '../../i18n/index.ts';
import { areaRoutes, isAllowed } from '../routes.tsx';
import { areaIcons } from './icons.tsx';

const accountPages = areaRoutes.filter((area) => !area.inMenu);

export function UserMenu() {
  const { t, i18n } = useTranslation();
  const { profile, role, logout } = useAuth();
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" width={240} withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={t('layout.userMenu')} data-testid="user-menu">
          <Group gap="xs">
            <Avatar radius="xl" size="sm" color="indigo">
              {(profile?.name ?? '?').slice(0, 1).toUpperCase()}
            </Avatar>
            <Text size="sm" visibleFrom="sm" maw={140} truncate>
              {profile?.name}
            </Text>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          {profile?.email} · {t(`roles.${role}`)}
        </Menu.Label>
        {accountPages.filter((area) => isAllowed(area, role)).map((area) => {
          const Icon = areaIcons[area.icon]!;
          return (
            <Menu.Item key={area.paths[0]} leftSection={<Icon size={16} />} onClick={() => void mayLeave().then((leave) => leave && navigate(area.paths[0]!))}>
              {t(area.titleKey)}
            </Menu.Item>
          );
        })}
        <Menu.Divider />
        <Menu.Label>
          <Group gap={6}>
            <IconLanguage size={14} />
            {t('account.language')}
          </Group>
        </Menu.Label>
        {locales.map((locale) => (
          <Menu.Item
            key={locale}
            data-testid={`locale-${locale}`}
            rightSection={i18n.language === locale ? <IconCheck size={14} /> : null}
            onClick={() => void changeLocale(locale)}
          >
            {t(`languages.${locale}`)}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item
          color="red"
          leftSection={<IconLogout size={16} />}
          data-testid="logout"
          onClick={() =>
            void mayLeave().then((leave) => {
              if (leave) void logout().finally(() => navigate('/login', { replace: true }));
            })
          }
        >
          {t('auth.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
