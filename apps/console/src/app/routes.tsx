import type { RoleName } from '@voxplan/contracts';
import { type ComponentType, lazy, type LazyExoticComponent } from 'react';

export interface AreaRoute {
  /** Path and its aliases (spec section 2). */
  paths: string[];
  /** i18n key of the menu entry and page title. */
  titleKey: string;
  roles?: RoleName[];
  hideFooter?: boolean;
  /** The page routes the paths below its own (`/visual-plan/<id>`). */
  nested?: boolean;
  /** In the main menu (account pages are reached from the user menu). */
  inMenu: boolean;
  /** The screen follows the whole live feed, which brings the rollbacks too: the notifications open no stream of their own there. */
  followsLiveFeed?: boolean;
  icon: string;
  page: LazyPage;
}

/** A screen's module: its page, and what it loads next for a path below it (`/visual-plan/<id>` → the editor). */
interface PageModule {
  default: ComponentType;
  preload?: (rest: string) => unknown;
}

/** A screen loaded when first shown, or before (`preload`: a page opened on it loads its code while the session is checked). */
type LazyPage = LazyExoticComponent<ComponentType> & { preload: () => Promise<PageModule> };

function lazyPage(load: () => Promise<PageModule>): LazyPage {
  return Object.assign(lazy(load), { preload: load });
}

const admin: RoleName[] = ['admin'];

/** Every screen of the console: one list, read by the router, the menu and the guard. */
export const areaRoutes: AreaRoute[] = [
  { paths: ['/dashboard', '/painel-de-controle'], titleKey: 'nav.dashboard', inMenu: true, icon: 'dashboard', followsLiveFeed: true, page: lazyPage(() => import('../features/dashboard/DashboardPage.tsx')) },
  {
    paths: ['/conversations', '/conversas'],
    titleKey: 'nav.conversations',
    inMenu: true,
    nested: true,
    icon: 'conversations',
    page: lazyPage(() => import('../features/conversations/ConversationsArea.tsx')),
  },
  { paths: ['/destination'], titleKey: 'nav.destinations', inMenu: true, icon: 'destination', page: lazyPage(() => import('../features/destinations/DestinationsPage.tsx')) },
  { paths: ['/numbers', '/numeros'], titleKey: 'nav.numbers', inMenu: true, icon: 'numbers', page: lazyPage(() => import('../features/numbers/NumbersPage.tsx')) },
  {
    paths: ['/do-not-call', '/nao-ligue'],
    titleKey: 'nav.doNotCall',
    inMenu: true,
    icon: 'doNotCall',
    page: lazyPage(() => import('../features/do-not-call/DoNotCallPage.tsx')),
  },
  {
    paths: ['/date-ranges', '/horarios'],
    titleKey: 'nav.dateRanges',
    inMenu: true,
    icon: 'schedule',
    page: lazyPage(() => import('../features/date-ranges/DateRangesPage.tsx')),
  },
  {
    paths: ['/date-ranges/holidays', '/horarios/feriados'],
    titleKey: 'nav.holidays',
    roles: admin,
    inMenu: true,
    icon: 'holiday',
    page: lazyPage(() => import('../features/holidays/HolidaysPage.tsx')),
  },
  { paths: ['/acl'], titleKey: 'nav.acl', inMenu: true, icon: 'acl', page: lazyPage(() => import('../features/acl/AclPage.tsx')) },
  {
    paths: ['/reports', '/relatorios'],
    titleKey: 'nav.reports',
    inMenu: true,
    nested: true,
    icon: 'reports',
    page: lazyPage(() => import('../features/reports/ReportsArea.tsx')),
  },
  {
    paths: ['/campaigns', '/campanhas'],
    titleKey: 'nav.campaigns',
    inMenu: true,
    nested: true,
    icon: 'campaigns',
    page: lazyPage(() => import('../features/campaigns/CampaignsArea.tsx')),
  },
  { paths: ['/audios'], titleKey: 'nav.audios', inMenu: true, icon: 'audios', page: lazyPage(() => import('../features/audios/AudiosPage.tsx')) },
  {
    paths: ['/visual-plan'],
    titleKey: 'nav.visualPlan',
    inMenu: true,
    hideFooter: true,
    nested: true,
    icon: 'plan',
    page: lazyPage(() => import('../features/visual-plans/VisualPlansArea.tsx')),
  },
  {
    paths: ['/general-settings'],
    titleKey: 'nav.generalSettings',
    roles: admin,
    hideFooter: true,
    inMenu: true,
    icon: 'settings',
    page: lazyPage(() => import('../features/settings/SettingsPage.tsx')),
  },
  { paths: ['/users', '/usuarios'], titleKey: 'nav.users', roles: admin, inMenu: true, icon: 'users', page: lazyPage(() => import('../features/users/UsersPage.tsx')) },
  { paths: ['/tenants'], titleKey: 'nav.tenants', roles: admin, inMenu: true, icon: 'tenants', page: lazyPage(() => import('../features/tenants/TenantsPage.tsx')) },
  { paths: ['/audit', '/auditoria'], titleKey: 'nav.audit', roles: admin, inMenu: true, icon: 'audit', page: lazyPage(() => import('../features/audit/AuditPage.tsx')) },
  { paths: ['/account/profile'], titleKey: 'account.profile', inMenu: false, icon: 'profile', page: lazyPage(() => import('../features/account/ProfilePage.tsx')) },
  { paths: ['/account/password'], titleKey: 'account.changePassword', inMenu: false, icon: 'password', page: lazyPage(() => import('../features/account/PasswordPage.tsx')) },
  { paths: ['/account/credentials'], titleKey: 'account.credentials', inMenu: false, icon: 'credentials', page: lazyPage(() => import('../features/account/CredentialsPage.tsx')) },
  { paths: ['/account/license'], titleKey: 'account.license', roles: admin, inMenu: false, icon: 'license', page: lazyPage(() => import('../features/license/LicensePage.tsx')) },
  { paths: ['/account/system-info'], titleKey: 'account.systemInfo', inMenu: false, icon: 'system', page: lazyPage(() => import('../features/account/SystemInfoPage.tsx')) },
];

/** The role may open the area: the guard lets it in and the menus show it. */
export function isAllowed(area: AreaRoute, role: RoleName): boolean {
  return !area.roles || area.roles.includes(role);
}

/** The area a path belongs to: the one whose path or alias is the longest prefix of it. */
export function areaOf(pathname: string, areas: AreaRoute[] = areaRoutes): AreaRoute | undefined {
  let best: { area: AreaRoute; length: number } | undefined;
  for (const area of areas) {
    for (const path of area.paths) {
      if ((pathname === path || pathname.startsWith(`${path}/`)) && (!best || path.length > best.length)) best = { area, length: path.length };
    }
  }
  return best?.area;
}
