import { ActionIcon, AppShell, Burger, Group, NavLink, ScrollArea, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { ModalsProvider } from '@mantine/modals';
import { IconLayoutNavbar, IconLayoutSidebar, IconMaximize, IconMinimize } from '@tabler/icons-react';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { useAuth } from '../../lib/auth.tsx';
import { FullPageLoader } from '../guard.tsx';
import { type AreaRoute, areaOf, areaRoutes } from '../routes.tsx';
import { ColorSchemeToggle } from './ColorSchemeToggle.tsx';
import { areaIcons } from './icons.tsx';
import { useLayoutPreferences } from './preferences.ts';
import { TenantPicker } from './TenantPicker.tsx';
import { UserMenu } from './UserMenu.tsx';

function useMenuAreas(): AreaRoute[] {
  const { role } = useAuth();
  return areaRoutes.filter((area) => area.inMenu && (!area.roles || area.roles.includes(role)));
}

function MenuLinks({ orientation, onNavigate }: { orientation: 'vertical' | 'horizontal'; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const areas = useMenuAreas();
  const current = areaOf(pathname, areas);
  return (
    <Group gap={4} wrap={orientation === 'horizontal' ? 'nowrap' : 'wrap'} style={orientation === 'vertical' ? { flexDirection: 'column', alignItems: 'stretch' } : undefined}>
      {areas.map((area) => {
        const Icon = areaIcons[area.icon]!;
        return (
          <NavLink
            key={area.paths[0]}
            component={Link}
            to={area.paths[0]!}
            label={t(area.titleKey)}
            leftSection={<Icon size={18} />}
            active={area === current}
            onClick={onNavigate}
            w={orientation === 'horizontal' ? 'auto' : undefined}
            style={{ borderRadius: 'var(--mantine-radius-md)', whiteSpace: 'nowrap' }}
          />
        );
      })}
    </Group>
  );
}

export default function AppLayout() {
  const { t } = useTranslation();
  const [mobileOpen, mobile] = useDisclosure(false);
  const { layout, setLayout, fullscreen, setFullscreen } = useLayoutPreferences();
  const area = areaOf(useLocation().pathname);
  const showFooter = !area?.hideFooter && !fullscreen;
  const side = layout === 'side' && !fullscreen;

  const toggleFullscreen = () => {
    const next = !fullscreen;
    setFullscreen(next);
    if (next) void document.documentElement.requestFullscreen?.().catch(() => undefined);
    else if (document.fullscreenElement) void document.exitFullscreen();
  };

  // Confirm dialogs live with the screens that open them, so the sign-in screen does not load them.
  return (
    <ModalsProvider>
    <AppShell
      header={{ height: 56 }}
      navbar={side ? { width: 240, breakpoint: 'sm', collapsed: { mobile: !mobileOpen } } : undefined}
      footer={showFooter ? { height: 36 } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            {side && <Burger opened={mobileOpen} onClick={mobile.toggle} hiddenFrom="sm" size="sm" aria-label={t('layout.menu')} />}
            <Text component={Link} to="/dashboard" fw={700} size="lg" c="var(--app-brand-text)" style={{ textDecoration: 'none' }}>
              {t('app.name')}
            </Text>
          </Group>
          {layout === 'top' && !fullscreen && (
            <ScrollArea type="never" style={{ flex: 1 }} visibleFrom="sm">
              <MenuLinks orientation="horizontal" />
            </ScrollArea>
          )}
          <Group gap="xs" wrap="nowrap">
            <TenantPicker />
            <Tooltip label={t(layout === 'side' ? 'layout.top' : 'layout.side')}>
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={t(layout === 'side' ? 'layout.top' : 'layout.side')}
                data-testid="layout-toggle"
                onClick={() => setLayout(layout === 'side' ? 'top' : 'side')}
              >
                {layout === 'side' ? <IconLayoutNavbar size={18} /> : <IconLayoutSidebar size={18} />}
              </ActionIcon>
            </Tooltip>
            <Tooltip label={t(fullscreen ? 'layout.exitFullscreen' : 'layout.fullscreen')}>
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={t(fullscreen ? 'layout.exitFullscreen' : 'layout.fullscreen')}
                data-testid="fullscreen-toggle"
                onClick={toggleFullscreen}
              >
                {fullscreen ? <IconMinimize size={18} /> : <IconMaximize size={18} />}
              </ActionIcon>
            </Tooltip>
            <ColorSchemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {side && (
        <AppShell.Navbar p="sm" aria-label={t('layout.menu')}>
          <ScrollArea>
            <MenuLinks orientation="vertical" onNavigate={mobile.close} />
          </ScrollArea>
        </AppShell.Navbar>
      )}
      <AppShell.Main>
        <Suspense fallback={<FullPageLoader />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
      {showFooter && (
        <AppShell.Footer px="md" data-testid="footer">
          <Group h="100%" justify="space-between">
            <Text size="xs" c="dimmed">
              {t('app.footer', { year: new Date().getFullYear() })}
            </Text>
          </Group>
        </AppShell.Footer>
      )}
    </AppShell>
    </ModalsProvider>
  );
}
