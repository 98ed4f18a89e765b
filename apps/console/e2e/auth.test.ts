import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, createPlan, startConsole } from './harness.ts';

let harness: ConsoleHarness;
/** acme, made below, and the tenant a fresh install starts with. */
const tenantRows = 2;

beforeAll(async () => {
  // Access tokens that expire after 4 s let the tests watch the console refresh them; long enough
  // that on a loaded machine a page reloaded with a fresh token asks for its list before it runs out.
  harness = await startConsole({ ACCESS_TOKEN_TTL: '4' });
  const token = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'acme' } });
  await harness.server.call({
    method: 'POST',
    url: '/users',
    token,
    payload: { username: 'olivia', password: 'olivia-password', email: 'olivia@acme.example', name: 'Olivia', roles: [{ role: 'user', tenant_id: tenant.json<{ id: number }>().id }] },
  });
});
afterAll(() => harness.close());

describe('sign-in and the navigation guard', () => {
  test('a protected route without a session goes to /login, and back after signing in', async () => {
    const { page } = await harness.newPage();
    await page.goto('/tenants');
    await page.waitForURL('**/login');
    await page.getByLabel('Username or e-mail').fill('admin');
    await page.getByLabel('Password', { exact: true }).fill('admin-password-1');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/tenants');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
  });

  test('wrong credentials are refused with the catalogue text, in Portuguese too', async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await page.goto('/login');
    await page.getByLabel('Usuário ou e-mail').fill('admin');
    await page.getByLabel('Senha', { exact: true }).fill('not-the-password');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('Usuário ou senha inválidos.');
  });

  test('empty fields are shown as required before anything is sent', async () => {
    const { page } = await harness.newPage();
    let loginCalls = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/login')) loginCalls++;
    });
    await page.goto('/login');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.getByText('Required').count()).toBe(2);
    expect(loginCalls).toBe(0);
  });

  test('/ goes to the dashboard; aliases reach the same screen', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/');
    await page.waitForURL('**/dashboard');
    await page.goto('/usuarios');
    await expect.poll(() => page.getByRole('heading', { name: 'Users' }).count()).toBe(1);
  });

  test('a user without the admin role is sent to / from admin-only routes', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, 'olivia', 'olivia-password');
    for (const path of ['/tenants', '/users', '/general-settings', '/audit', '/date-ranges/holidays']) {
      await page.goto(path);
      await page.waitForURL('**/dashboard');
    }
    await expect.poll(() => page.getByRole('link', { name: 'Tenants' }).count()).toBe(0);
  });

  test('a reload keeps the session through the refresh cookie', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    // The page has shown its list (its first refresh answered) before the person reloads it: a
    // reload that cuts that refresh short is another matter (the rotated cookie never arrives).
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
    await page.reload();
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
    expect(new URL(page.url()).pathname).toBe('/tenants');
  });

  test('requests that find the token expired share one refresh and are retried', async () => {
    const { page } = await harness.newPage();
    // The console's conversations stream ends at every expiry and reconnects through the same shared
    // refresh (the next test), at a moment of its own; cut here so that the table's two requests are
    // the ones to find the token stale when this test clicks. (This test was written when only the
    // Conversations screen opened that stream.)
    await page.route('**/api/v1/conversations/events', (route) => route.abort());
    await harness.signIn(page);
    await page.goto('/tenants');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
    await page.waitForTimeout(4500);
    const refreshes: string[] = [];
    const retried: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/v1/refresh') refreshes.push(url.pathname);
      if (url.pathname.startsWith('/api/v1/tenants')) retried.push(url.pathname);
    });
    // The refresh button asks for the list and its count at once: two requests, both stale.
    await page.getByTestId('table-refresh').click();
    await expect.poll(() => retried.length).toBeGreaterThanOrEqual(4);
    expect(refreshes).toHaveLength(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
    expect(await page.getByTestId('page-error').count()).toBe(0);
  });

  test('an idle console keeps its agent online past the token: the conversations stream reconnects with a refreshed token', async () => {
    const { page } = await harness.newPage();
    const streams: string[] = [];
    const refreshes: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/v1/conversations/events') streams.push(url.pathname);
      if (url.pathname === '/api/v1/refresh') refreshes.push(url.pathname);
    });
    await harness.signIn(page, 'olivia', 'olivia-password');
    await page.goto('/dashboard');
    const presence = async () => (await harness.server.call({ method: 'GET', url: '/agents/me', token: await harness.server.login('olivia', 'olivia-password') })).json<{ status: string }>().status;
    await expect.poll(presence).toBe('online');
    // The token lives 4 s: the server ends the stream then, and the console opens it again with the
    // token one refresh gave it, nothing clicked meanwhile.
    await expect.poll(() => refreshes.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => streams.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(presence).toBe('online');
    // The tab closes: offline at once, or, closed in the second between a stream's expiry and its
    // reconnect, once the 15 s the server waits for the console to come back are over (docs/conversations.md).
    await page.context().close();
    await expect.poll(presence, { timeout: 45_000 }).toBe('offline');
  });

  test("the test panel opens its simulator again when the token it opened with expires, and says so when that ended a run", async () => {
    const token = await harness.server.login('olivia', 'olivia-password');
    const plan = await createPlan(harness.server, token, 'Renewed while testing', {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        { id: 'menu', type: 'voice_menu', position: { x: 250, y: 0 }, data: { voice_text: 'Press 1 to leave.', options: [{ digits: '1', label: 'Leave' }] } },
        { id: 'bye', type: 'hangup', position: { x: 500, y: 0 }, data: {} },
      ],
      edges: [{ id: 'menu-1', source: 'menu', source_exit: '1', target: 'bye' }, { id: 'start-next', source: 'start', source_exit: 'next', target: 'menu' }],
    });
    const { page } = await harness.newPage();
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await harness.signIn(page, 'olivia', 'olivia-password');
    await page.goto(`/visual-plan/${plan.id}`);
    await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
    await page.getByTestId('editor-test').click();
    const connection = () => page.getByTestId('test-panel-connection').textContent();
    await expect.poll(connection).toBe('Connected');
    // A run that waits for a key (its gather's own clock off), while the token the socket opened with runs out (4 s).
    await page.getByTestId('test-panel-auto-timeout').click();
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => page.getByTestId('test-panel-renewed').textContent(), { timeout: 30_000 }).toBe(
      'Your sign-in was renewed while the test ran, which ended it. The panel is connected again: start again.',
    );
    // Connected again by itself, on a new socket: nothing to click, no "connection lost".
    await expect.poll(() => sockets.length).toBeGreaterThanOrEqual(2);
    await expect.poll(connection).toBe('Connected');
    expect(await page.getByTestId('test-panel-status').textContent()).toBe('The run has ended.');
    expect(await page.getByRole('button', { name: 'Reconnect' }).count()).toBe(0);
  });

  test('when the refresh fails the user is signed out locally, without calling the server', async () => {
    const { page, context } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(tenantRows);
    await page.waitForTimeout(4500);
    await context.clearCookies();
    let logoutCalls = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/logout')) logoutCalls++;
    });
    await page.getByTestId('table-refresh').click();
    await page.waitForURL('**/login');
    await expect.poll(() => page.getByText('Your session has expired, please login again').count()).toBe(1);
    expect(logoutCalls).toBe(0);
  });

  test('signing out calls the server and returns to /login; the old session is gone', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    const logout = page.waitForRequest((request) => request.url().endsWith('/api/v1/logout') && request.method() === 'POST');
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await logout;
    await page.waitForURL('**/login');
    await page.goto('/tenants');
    await page.waitForURL('**/login');
  });
});
