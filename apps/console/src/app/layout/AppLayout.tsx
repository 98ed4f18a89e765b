import { ActionIcon, AppShell, Burger, Divider, Drawer, Group, NavLink, ScrollArea, Stack, Text, Tooltip, useMantineTheme } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { ModalsProvider } from '@mantine/modals';
import { IconLayoutNavbar, IconLayoutSidebar, IconMaximize, IconMinimize } from '@tabler/icons-react';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { ChatAlerts } from '../../features/conversations/ChatAlerts.tsx';
import { ConversationFeedProvider } from '../../features/conversations/feed-context.tsx';
import { RollbackAlerts } from '../../features/visual-plans/rollouts/RollbackAlerts.tsx';
import { useAuth } from '../../lib/auth.tsx';
import { FullPageLoader } from '../guard.tsx';
import { type AreaRoute, areaOf, areaRoutes, isAllowed } from '../routes.tsx';
import { ColorSchemeToggle } from './ColorSchemeToggle.tsx';
import { areaIcons } from './icons.tsx';
import { BurgerWithCount, menuCounts } from './menu-counts.tsx';
import { useLayoutPreferences } from './preferences.ts';
import { TenantPicker } from './TenantPicker.tsx';
import { TopMenu } from './TopMenu.tsx';
import { UserMenu } from './UserMenu.tsx';

function useMenuAreas(): AreaRoute[] {
  const { role } = useAuth();
  return areaRoutes.filter((area) => area.inMenu && isAllowed(area, role));
}

function MenuLinks({ areas, onNavigate }: { areas: AreaRoute[]; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const current = areaOf(useLocation().pathname, areas);
  return (
    <Stack gap={4}>
      {areas.map((area) => {
        const Icon = areaIcons[area.icon]!;
        const Count = menuCounts[area.icon];
        return (
          <NavLink
            key={area.paths[0]}
            component={Link}
            to={area.paths[0]!}
            label={t(area.titleKey)}
            leftSection={<Icon size={18} />}
            rightSection={Count && <Count />}
            active={area === current}
            onClick={onNavigate}
            style={{ borderRadius: 'var(--mantine-radius-md)' }}
          />
        );
      })}
    </Stack>
  );
}

/**
 * The shell. From the sm breakpoint up the menu is on the side or on top (with a "More" menu for
 * what does not fit); below it, and in full screen, a burger opens a drawer with every menu item.
 * On a phone the header keeps the colour toggle and the user menu (language, sign-out), and the
 * drawer takes the tenant picker and the full-screen button, so that everything is reachable from
 * 360 px up.
 */
export default function AppLayout() {
  const { t } = useTranslation();
  const [drawerOpen, drawer] = useDisclosure(false);
  const { layout, setLayout, fullscreen, setFullscreen } = useLayoutPreferences();
  const area = areaOf(useLocation().pathname);
  const areas = useMenuAreas();
  // Read at once rather than after the first paint, so a wide screen never starts with the phone's header.
  const wide = useMediaQuery(`(min-width: ${useMantineTheme().breakpoints.sm})`, true, { getInitialValueInEffect: false });
  const showFooter = !area?.hideFooter && !fullscreen;
  const side = layout === 'side' && !fullscreen && wide;
  const top = layout === 'top' && !fullscreen && wide;
  const withDrawer = !wide || fullscreen;
  const conversationsInMenu = areas.some((menuArea) => menuArea.icon === 'conversations');
  const plansInMenu = areas.some((menuArea) => menuArea.icon === 'plan');

  const toggleFullscreen = () => {
    const next = !fullscreen;
    setFullscreen(next);
    if (next) void document.documentElement.requestFullscreen?.().catch(() => undefined);
    else if (document.fullscreenElement) void document.exitFullscreen();
  };

  const fullscreenButton = (
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
  );

  // Confirm dialogs live with the screens that open them, so the sign-in screen does not load them.
  return (
    <ModalsProvider>
    <ConversationFeedProvider enabled={conversationsInMenu}>
    {conversationsInMenu && <ChatAlerts />}
    {plansInMenu && <RollbackAlerts ownStream={!area?.followsLiveFeed} />}
    <AppShell
      header={{ height: 56 }}
      navbar={side ? { width: 240, breakpoint: 'sm' } : undefined}
      footer={showFooter ? { height: 36 } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
            {withDrawer && (conversationsInMenu ? <BurgerWithCount opened={drawerOpen} onClick={drawer.toggle} /> : <Burger opened={drawerOpen} onClick={drawer.toggle} size="sm" aria-label={t('layout.menu')} data-testid="menu-burger" />)}
            <Text component={Link} to="/dashboard" fw={700} size="lg" c="var(--app-brand-text)" style={{ textDecoration: 'none' }}>
              {t('app.name')}
            </Text>
          </Group>
          {top && <TopMenu areas={areas} />}
          <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
            {wide && <TenantPicker />}
            {wide && (
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
            )}
            {wide && fullscreenButton}
            <ColorSchemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {side && (
        <AppShell.Navbar p="sm" aria-label={t('layout.menu')}>
          <ScrollArea>
            <MenuLinks areas={areas} />
          </ScrollArea>
        </AppShell.Navbar>
      )}
      {withDrawer && (
        <Drawer opened={drawerOpen} onClose={drawer.close} size={280} title={t('app.name')} closeButtonProps={{ 'aria-label': t('common.close') }} data-testid="menu-drawer">
          <Stack gap="md">
            {!wide && (
              <Group gap="xs" wrap="nowrap">
                <div style={{ flex: 1 }}>
                  <TenantPicker fullWidth />
                </div>
                {fullscreenButton}
              </Group>
            )}
            {!wide && <Divider />}
            <nav aria-label={t('layout.menu')}>
              <MenuLinks areas={areas} onNavigate={drawer.close} />
            </nav>
          </Stack>
        </Drawer>
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
    </ConversationFeedProvider>
    </ModalsProvider>
  );
}
