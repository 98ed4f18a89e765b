import type { Page, Request } from 'playwright-core';
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildReport, createSession, type Session } from '@voxplan/engine';
import { contactKeyOf, meetsCandidate } from '../../server/src/lib/rollout-choice.ts';
import { checkAutoRollbacks } from '../../server/src/modules/rollouts/auto-rollback.ts';
import { saveReport } from '../../server/src/modules/sessions/call-reports.repository.ts';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { chooseOption, type ConsoleHarness, createPlan, openPlanEditor, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';
import { inView } from './whatsapp-desk.ts';

/**
 * Staged rollouts in the console (issue 41, docs/rollouts.md): a new version published from the
 * editor to a share of the sessions with a pinned test number, calls run on both versions (the
 * pinned number meets the new one), the dashboard's row and the plan's statistics per version,
 * each version's figures side by side in the versions drawer, its test numbers and rule changed there,
 * then the new version rolled back, and a report of a session that reached the plan through
 * call_plan names the version it met there; rolled out again, its sessions fail and the automatic rule rolls
 * it back: the notification on another screen (the dashboard, whose live feed is the tab's one
 * stream; or the audios) names the plan, the versions and why, and opens the plan; in English and
 * in Portuguese.
 */
let harness: ConsoleHarness;
let member: TenantMember;

const group = 'rollouts';
const PINNED = '+15550004101';
const SECOND_PINNED = '+15550004102';
const node = (id: string, type: string, x: number, y: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

/** A front desk whose menu says `words`; pressing 1 reaches the "paid" goal. */
const desk = (words: string) => ({
  nodes: [
    node('start', 'start', 0, 0),
    node('menu', 'voice_menu', 250, 0, { voice_text: words, options: [{ digits: '1', label: 'Pay' }] }),
    node('paid', 'play_message', 250, 200, { voice_text: 'Thank you, paid.', goal: 'paid' }),
    node('bye', 'hangup', 0, 200),
  ],
  edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'paid'), edge('paid', 'next', 'bye'), edge('menu', 'timeout', 'bye'), edge('menu', 'invalid', 'bye')],
});

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'rollouts');
});

afterAll(() => harness?.close());

/** A plan published once (version 2), with a draft that changes its menu (version 3). */
async function planWithDraft(name: string): Promise<number> {
  const plan = await createPlan(harness.server, member.token, name, desk('Press 1 to pay.'));
  const published = await harness.server.call({ method: 'POST', url: `/visual-plans/${plan.id}/publish`, token: member.token, payload: { base_version: plan.version } });
  expect(published.statusCode, published.body).toBe(200);
  const draft = await harness.server.call({ method: 'PUT', url: `/visual-plans/${plan.id}/document`, token: member.token, payload: { base_version: plan.version, ...desk('To pay now, press 1.') } });
  expect(draft.statusCode, draft.body).toBe(200);
  return draft.json<VisualPlanDocument>().id;
}

let serial = 0;
/** An inbound call from `caller`: it presses 1 (the goal) or hangs up at the menu; answers the version it ran. */
async function call(planId: number, caller: string, presses: boolean): Promise<number> {
  const id = `rollout-call-${++serial}`;
  const { sessions } = harness.server.ctx;
  await sessions.start({ id, tenant_id: member.tenantId, plan_id: planId, channel: 'voice', provider: 'twilio', direction: 'inbound', caller, called: '+15550004100' });
  const ended = await sessions.handleTurn(id, `${id}-1`, presses ? { type: 'digits', digits: '1' } : { type: 'hangup' });
  return ended.report!.plan_version;
}

/** Sessions of `version` that the engine stopped, reported as the report writer stores them (what the automatic rule counts). */
async function failedSessions(planId: number, version: number, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const id = `rollout-failed-${++serial}`;
    const created = createSession({ id, tenant_id: member.tenantId, plan_id: planId, channel: 'voice', provider: 'twilio', caller: `+1555020${String(serial).padStart(4, '0')}`, called: '+15550004100' }, { version, name: 'Simulated' }, new Date());
    const session: Session = { ...created, status: 'ended', ended_at: new Date().toISOString(), disposition: 'failed', hangup_cause: 'engine_error' };
    await saveReport(harness.server.ctx.db, buildReport(session), false, new Date().toISOString());
  }
}

/** The report of a session that started in a plan named `shop` and entered plan `planId` through call_plan at `version`: its id. */
async function calledThrough(planId: number, version: number, shop: string): Promise<number> {
  const plan = await createPlan(harness.server, member.token, shop, { nodes: [node('start', 'start', 0, 0), node('pay', 'call_plan', 250, 0, { plan_id: planId })], edges: [edge('start', 'next', 'pay')] });
  const id = `rollout-called-${++serial}`;
  const created = createSession({ id, tenant_id: member.tenantId, plan_id: plan.id, channel: 'voice', provider: 'twilio', caller: '+15550004199', called: '+15550004100' }, { version: plan.version, name: shop }, new Date());
  const session: Session = { ...created, status: 'ended', ended_at: new Date().toISOString(), disposition: 'retained', called_plans: [{ plan_id: planId, plan_version: version, path_index: 0 }] };
  await saveReport(harness.server.ctx.db, buildReport(session), false, new Date().toISOString());
  const stored = await harness.server.call({ method: 'GET', url: `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { session_id: id } }))}`, token: member.token });
  return stored.json<{ id: number }[]>()[0]!.id;
}

/** Numbers the rollout leaves on the current version (their sticky bucket is past the share). */
function baseCallers(planId: number, count: number): string[] {
  const rollout = { candidate_version: 3, share: 10, pinned: [PINNED] };
  const callers: string[] = [];
  for (let n = 0; callers.length < count; n++) {
    const caller = `+1555010${String(n).padStart(4, '0')}`;
    if (!meetsCandidate(planId, contactKeyOf(caller), rollout)) callers.push(caller);
  }
  return callers;
}

const texts = {
  en: {
    live: ['Version 2', 'current', '90\u00a0%', 'Version 3', 'new', '10\u00a0%'],
    pinned: `Always the new version: ${PINNED}`,
    pinnedTwo: `Always the new version: ${PINNED}, ${SECOND_PINNED}`,
    rule: 'Rolls back by itself when its goal rate is worse (95 % confidence); more than 20 % of its sessions fail.',
    figures: { sessions: ['3', '2'], retained: ['1', '2'], abandoned: ['2', '0'], converted: ['1', '2'], goalRate: ['33.3%', '100%'] },
    confidence: 'Not enough data yet.',
    rolledBack: 'Version 2 meets every call and chat.',
    autoTitle: 'Version 3 was rolled back by itself',
    versions: ['Version 2', 'Version 3'],
    canvasNote: 'The canvas shows the draft, which may differ from this version: only the blocks they share light up.',
    keys: { all: '3 times (100%)', v3: '2 times (100%)', v2: '1 time (100%)' },
    calledPlans: 'Plans called',
    alertTitle: 'Front desk en: v3 rolled back automatically',
    alertReason: '30 of its 30 sessions (100%) ended in an engine error or a failed hand-off, above the 5% allowed. Every call and chat meets v2 again.',
  },
  pt: {
    live: ['Versão 2', 'atual', '90\u00a0%', 'Versão 3', 'nova', '10\u00a0%'],
    pinned: `Sempre a nova versão: ${PINNED}`,
    pinnedTwo: `Sempre a nova versão: ${PINNED}, ${SECOND_PINNED}`,
    rule: 'Reverte sozinho quando a taxa de meta for pior (95 % de confiança); mais de 20 % das sessões falharem.',
    figures: { sessions: ['3', '2'], retained: ['1', '2'], abandoned: ['2', '0'], converted: ['1', '2'], goalRate: ['33,3%', '100%'] },
    confidence: 'Ainda não há dados suficientes.',
    rolledBack: 'A versão 2 atende todas as chamadas e conversas.',
    autoTitle: 'A versão 3 foi revertida sozinha',
    versions: ['Versão 2', 'Versão 3'],
    canvasNote: 'O canvas mostra o rascunho, que pode ser diferente desta versão: só os blocos em comum se acendem.',
    keys: { all: '3 vezes (100%)', v3: '2 vezes (100%)', v2: '1 vez (100%)' },
    calledPlans: 'Planos chamados',
    alertTitle: 'Front desk pt: v3 revertida automaticamente',
    alertReason: '30 de suas 30 sessões (100%) terminaram em erro do motor ou transferência com falha, acima dos 5% permitidos. Todas as chamadas e conversas voltam à v2.',
  },
} as const;

const cells = async (page: Page, key: string) => (await page.getByTestId(`rollout-figure-${key}`).locator('td').allTextContents()).map((text) => text.trim());

async function openVersions(page: Page) {
  await page.getByTestId('editor-more').click();
  await page.getByTestId('editor-versions').click();
  await expect.poll(() => page.getByTestId('rollout-panel').isVisible()).toBe(true);
}

// The automatic rollback is told on the dashboard in one run (its live feed brings it) and on another screen in the other (the rollbacks' own stream).
describe.each([
  ['en', 'en-US', 'light', '/dashboard'],
  ['pt', 'pt-BR', 'dark', '/audios'],
] as const)('a rollout in %s', (language, locale, colorScheme, alertScreen) => {
  test('started from the editor at 10 % with a pinned number, its results per version seen, rolled back', async () => {
    const text = texts[language];
    const planId = await planWithDraft(`Front desk ${language}`);
    const page = await openPlanEditor(harness, planId, member, { locale, colorScheme });

    // Publish to a share: 10 %, one pinned test number, the goal rule.
    await page.getByTestId('editor-publish').click();
    await page.getByTestId('publish-to-share').click();
    await page.getByTestId('rollout-share').fill('10');
    await page.getByTestId('rollout-pinned').fill(PINNED);
    await page.getByTestId('rollout-pinned').press('Enter');
    await page.getByTestId('rollout-goal-worse').check();
    await screenshotStates(page, 'publish-to-share', { group });
    await page.getByTestId('confirm-publish-share').click();
    await expect.poll(() => page.getByTestId('publish-dialog').isVisible()).toBe(false);
    const stored = await harness.server.call({ method: 'GET', url: `/visual-plans/${planId}/rollout`, token: member.token });
    expect(stored.json()).toMatchObject({ rollout: { base_version: 2, candidate_version: 3, share: 10, pinned: [PINNED], auto_rollback: { goal_worse: true, max_failure_rate: null } } });

    // Calls: the pinned number twice (both pay), three others on the current version (one pays, two hang up).
    expect([await call(planId, PINNED, true), await call(planId, PINNED, true)]).toEqual([3, 3]);
    const [payer, ...leavers] = baseCallers(planId, 3);
    expect([await call(planId, payer!, true), await call(planId, leavers[0]!, false), await call(planId, leavers[1]!, false)]).toEqual([2, 2, 2]);

    // The dashboard's row of the plan says a rollout runs, from the statistics' answer (no request per row).
    const rolloutRequests: string[] = [];
    page.on('request', (request) => {
      if (/\/visual-plans\/\d+\/rollout$/.test(new URL(request.url()).pathname)) rolloutRequests.push(request.url());
    });
    await page.goto('/dashboard');
    const row = page.getByTestId('plan-stats-row').filter({ hasText: `Front desk ${language}` });
    await expect.poll(() => row.getByTestId('plan-rollout').textContent()).toBe('v2 → v3 10\u00a0%');
    expect(rolloutRequests).toEqual([]);

    // The plan's statistics ran two versions: a version picked shows its own keys (v3: the pinned number's two; v2: the payer's one).
    await row.getByTestId('plan-stats-open').click();
    const keyOne = page.getByTestId('plan-menu-key').and(page.locator('[data-digits="1"]'));
    await expect.poll(() => keyOne.textContent()).toBe(`1${text.keys.all}`);
    await chooseOption(page, 'plan-version', text.versions[1]);
    await expect.poll(() => keyOne.textContent()).toBe(`1${text.keys.v3}`);
    await screenshotStates(page, 'plan-statistics-version', { group, settle: (shot) => shot.getByTestId('plan-version').evaluate((picker) => picker.scrollIntoView({ block: 'center' })) });
    await chooseOption(page, 'plan-version', text.versions[0]);
    await expect.poll(() => keyOne.textContent()).toBe(`1${text.keys.v2}`);

    // The drawer: two versions live with their shares, the pinned number, the figures side by side.
    await page.goto(`/visual-plan/${planId}`);
    await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
    await openVersions(page);
    await expect.poll(async () => (await page.getByTestId('rollout-version').allTextContents()).join(' ')).toBe(`${text.live[0]}${text.live[1]}${text.live[2]} ${text.live[3]}${text.live[4]}${text.live[5]}`);
    expect(await page.getByTestId('rollout-pinned-list').textContent()).toBe(text.pinned);
    await expect.poll(() => page.getByTestId('rollout-results').isVisible()).toBe(true);
    for (const [key, values] of Object.entries(text.figures)) expect(await cells(page, key), key).toEqual(values);
    expect(await page.getByTestId('rollout-confidence').textContent()).toBe(text.confidence);
    await screenshotStates(page, 'drawer-rollout', { group });

    // At 390 px the controls are in view once scrolled to, and the results table fits.
    await page.setViewportSize({ width: 390, height: 844 });
    const rollback = page.getByTestId('rollout-rollback');
    await rollback.scrollIntoViewIfNeeded();
    expect(await inView(page, rollback)).toBe(true);
    // "Change the share" keeps its words: below the field when the row has no room, never cut.
    const changeShare = page.getByTestId('rollout-change-share');
    await changeShare.scrollIntoViewIfNeeded();
    expect(await inView(page, changeShare)).toBe(true);
    expect(await changeShare.evaluate((button) => [...Array.from(button.querySelectorAll('*')), button].every((part) => part.scrollWidth <= part.clientWidth + 1))).toBe(true);
    await page.getByTestId('rollout-results').scrollIntoViewIfNeeded();
    await screenshotStates(page, 'rollout-results', { group });

    // The test numbers and the rule change on the running rollout, from the drawer (at 390 px: the dialog's save in view).
    await page.getByTestId('rollout-edit').click();
    const save = page.getByTestId('rollout-edit-save');
    await expect.poll(() => save.isVisible()).toBe(true);
    expect(await page.getByTestId('rollout-goal-worse').isChecked()).toBe(true);
    await page.getByTestId('rollout-pinned').fill(SECOND_PINNED);
    await page.getByTestId('rollout-pinned').press('Enter');
    await page.getByTestId('rollout-failure-rule').check();
    await page.getByTestId('rollout-failure-rate').fill('20');
    await screenshotStates(page, 'rollout-edit', { group });
    expect(await inView(page, save)).toBe(true);
    await save.click();
    await expect.poll(() => save.isHidden()).toBe(true);
    await expect.poll(() => page.getByTestId('rollout-pinned-list').textContent()).toBe(text.pinnedTwo);
    expect(await page.getByTestId('rollout-rule').textContent()).toBe(text.rule);
    const edited = await harness.server.call({ method: 'GET', url: `/visual-plans/${planId}/rollout`, token: member.token });
    expect(edited.json()).toMatchObject({ rollout: { share: 10, pinned: [PINNED, SECOND_PINNED], auto_rollback: { goal_worse: true, max_failure_rate: 20 } } });

    // Roll back: asked first, then one version is live again; sessions go to version 2.
    await rollback.click();
    await page.getByTestId('confirm-rollout-rollback').click();
    await expect.poll(() => page.getByTestId('rollout-live').textContent()).toBe(text.rolledBack);
    expect(await page.getByTestId('rollout-running').count()).toBe(0);
    expect(await call(planId, PINNED, true)).toBe(2);

    // A session that started in another plan and entered this one through call_plan at version 3: its report says so.
    const reportId = await calledThrough(planId, 3, `Shop ${language}`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/reports/${reportId}`);
    const calledRow = page.getByTestId('report-summary').getByRole('row', { name: text.calledPlans });
    await expect.poll(() => calledRow.textContent()).toBe(`${text.calledPlans}Front desk ${language} (${text.versions[1].toLowerCase()})`);
    await screenshotStates(page, 'report-called-plans', { group });
    // In the reports' table its row names the plan it started in and the version it ran there (the Version column).
    await page.getByTestId('report-back').click();
    const reportRow = page.getByTestId('table-row').filter({ hasText: '+15550004199' });
    await expect.poll(async () => (await reportRow.locator('td').allTextContents()).slice(1, 3)).toEqual([`Shop ${language}`, '2']);

    // The automatic rule, for real: the same version rolled out again with a failure limit of 5 %, and 30 of its sessions fail.
    const again = await harness.server.call({
      method: 'POST',
      url: `/visual-plans/${planId}/publish`,
      token: member.token,
      payload: { base_version: 3, rollout: { share: 10, pinned: [], auto_rollback: { goal_worse: false, max_failure_rate: 5 } } },
    });
    expect(again.statusCode, again.body).toBe(200);
    await failedSessions(planId, 3, 30);
    // On another screen, the console hears it wherever the person is (its stream is open once the server answered it):
    // on the dashboard through the dashboard's own live feed, one stream for the tab; elsewhere the rollbacks' own stream.
    const streams = new Set<Request>();
    const isStream = (request: Request) => new URL(request.url()).pathname.endsWith('/stats/live/events');
    page.on('request', (request) => void (isStream(request) && streams.add(request)));
    page.on('requestfinished', (request) => void streams.delete(request));
    page.on('requestfailed', (request) => void streams.delete(request));
    const listening = page.waitForResponse((response) => isStream(response.request()));
    await page.goto(alertScreen);
    await listening;
    const openStreams = () => [...streams].map((request) => new URL(request.url()).search);
    await expect.poll(openStreams).toEqual([alertScreen === '/dashboard' ? '' : '?only=rollouts']);
    expect(await checkAutoRollbacks(harness.server.ctx)).toEqual([again.json<{ rollout: { id: number } }>().rollout.id]);
    const alert = page.getByTestId('rollback-alert');
    await expect.poll(() => alert.isVisible()).toBe(true);
    expect(await alert.textContent()).toContain(`${text.alertTitle}${text.alertReason}`);
    expect(openStreams()).toHaveLength(1);
    await screenshotStates(page, 'rollback-alert', { group });

    // Its link opens the plan, whose versions drawer keeps the server's note.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('rollback-alert-open').click();
    await expect.poll(() => alert.isHidden()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/visual-plan/${planId}`);
    await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
    await openVersions(page);
    const note = page.getByTestId('rollout-auto-note');
    await expect.poll(() => note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain(`${text.autoTitle}Automatic rollback of “Front desk ${language}”: 30 of 30 sessions of version 3`);

    // The test panel runs any version by its number: the rolled-back candidate still says its new words, version 2 its old ones.
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('rollout-panel').isHidden()).toBe(true);
    await page.getByTestId('editor-test').click();
    const transcript = page.getByTestId('test-panel-transcript');
    // The canvas shows the draft: the panel says so once another version is chosen, and not for the draft.
    const canvasNote = page.getByTestId('test-panel-version-note');
    await expect.poll(() => canvasNote.isHidden()).toBe(true);
    for (const [version, words, notWords] of [[text.versions[1], 'To pay now, press 1.', 'Press 1 to pay.'], [text.versions[0], 'Press 1 to pay.', 'To pay now, press 1.']] as const) {
      await chooseOption(page, 'test-panel-version', version);
      await expect.poll(() => canvasNote.isVisible()).toBe(true);
      expect(await canvasNote.textContent()).toBe(text.canvasNote);
      await page.getByTestId('test-panel-start').click();
      await expect.poll(() => transcript.textContent()).toContain(words);
      expect(await transcript.textContent()).not.toContain(notWords);
    }
    await screenshotStates(page, 'test-panel-version', { group });
  });
});
