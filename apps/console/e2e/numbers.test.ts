import type { PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, q, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';

const PUBLIC_URL = 'https://voxplan.example.com';
let harness: ConsoleHarness;
let admin: string;
let member: TenantMember;
let guest: TenantMember;
const plans: Record<string, number> = {};

beforeAll(async () => {
  harness = await startConsole({ PUBLIC_URL });
  admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'numbertenant');
  guest = await createTenantUser(harness.server, admin, member.tenantId, 'numberguest', 'guest');
  for (const name of ['Main menu', 'Web chat bot', 'After hours', 'VIP desk']) {
    const plan = await harness.server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name } });
    expect(plan.statusCode, plan.body).toBe(201);
    plans[name] = plan.json<{ id: number }>().id;
  }
  const hours = await harness.server.call({
    method: 'POST',
    url: '/date-ranges',
    token: member.token,
    payload: { name: 'Business hours', time_zone: 'America/Sao_Paulo', intervals: [{ day: 'monday', start: '08:00', end: '18:00' }] },
  });
  expect(hours.statusCode, hours.body).toBe(201);
});
afterAll(() => harness.close());

const stored = async (): Promise<PhoneNumber[]> =>
  (await harness.server.call({ method: 'GET', url: `/numbers?${q('filter', { order: ['id ASC'] })}`, token: member.token })).json<PhoneNumber[]>();
const storedNumber = async (number: string) => (await stored()).find((row) => row.number === number);

async function openNumbers(who: TenantMember = member, options: { locale?: string; colorScheme?: 'light' | 'dark'; path?: string } = {}): Promise<Page> {
  const { page } = await harness.newPage({ locale: options.locale ?? 'en-US', ...(options.colorScheme && { colorScheme: options.colorScheme }) });
  await harness.signIn(page, who.username, who.password);
  await page.goto(options.path ?? '/numbers');
  await page.getByTestId('data-table').waitFor();
  return page;
}

/** Adds a caller prefix to a rule's tags field. */
async function addPrefix(page: Page, rule: number, prefix: string): Promise<void> {
  await page.getByTestId(`rule-${rule}-prefixes`).fill(prefix);
  await page.getByTestId(`rule-${rule}-prefixes`).press('Enter');
}

describe('numbers screen', () => {
  test('a member creates a number with its plans and ordered rules, moving one up', async () => {
    const page = await openNumbers();
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    await page.getByTestId('number-new').click();
    await page.getByTestId('number-number').fill('+551140000001');
    await page.getByTestId('number-description').fill('Reception');
    await chooseOption(page, 'number-voice-plan', 'Main menu');
    await chooseOption(page, 'number-chat-plan', 'Web chat bot');

    await page.getByTestId('rule-add').click();
    await chooseOption(page, 'rule-0-date-range', 'Business hours');
    await chooseOption(page, 'rule-0-plan', 'After hours');
    await page.getByTestId('rule-add').click();
    await addPrefix(page, 1, '+5521');
    await addPrefix(page, 1, '5531');
    await chooseOption(page, 'rule-1-plan', 'VIP desk');
    // The callers' rule goes first.
    await page.getByTestId('rule-1-up').click();
    expect(await page.getByTestId('rule-0-plan').inputValue()).toBe('VIP desk');
    expect(await page.getByTestId('rule-0-up').isDisabled()).toBe(true);

    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number created.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    expect(await rowWith(page, '+551140000001').locator('td').allTextContents()).toEqual(expect.arrayContaining(['+551140000001', 'Twilio', 'Reception', '2 rules']));
    expect(await storedNumber('+551140000001')).toMatchObject({
      provider: 'twilio',
      voice_plan_id: plans['Main menu'],
      chat_plan_id: plans['Web chat bot'],
      rules: [
        { date_range_id: null, caller_prefixes: ['+5521', '5531'], plan_id: plans['VIP desk'] },
        { date_range_id: expect.any(Number), caller_prefixes: [], plan_id: plans['After hours'] },
      ],
    });
  });

  test('mistakes are said on their fields: the number, a rule with no condition or no plan, a taken number', async () => {
    const page = await openNumbers();
    const dialog = page.getByRole('dialog');
    await page.getByTestId('number-new').click();
    // The mask keeps digits and the + only: a number starting with 0 is what is left to refuse.
    await page.getByTestId('number-number').fill('011 4000-0002');
    expect(await page.getByTestId('number-number').inputValue()).toBe('+01140000002');
    await page.getByTestId('rule-add').click();
    await page.getByTestId('number-save').click();
    await expect.poll(() => dialog.getByText('Enter the number in E.164: + then digits only, up to 15 (+5511400000000)').count()).toBe(1);
    expect(await dialog.getByText('Give the rule a schedule or caller prefixes').count()).toBe(1);
    expect(await dialog.getByText('Required').count()).toBe(1);
    await addPrefix(page, 0, '55+11');
    await page.getByTestId('number-save').click();
    await expect.poll(() => dialog.getByText('A prefix is digits, with an optional + in front (+5511)').count()).toBe(1);

    // Valid, but another number has it: the server's answer lands on the number.
    await page.getByTestId('rule-0-remove').click();
    await page.getByTestId('number-number').fill('+551140000001');
    await page.getByTestId('number-save').click();
    await expect.poll(() => dialog.getByText('This phone number is already registered (in this tenant or another one).').count()).toBe(1);
    expect(await page.getByTestId('number-number').getAttribute('aria-invalid')).toBe('true');
    expect(await stored()).toHaveLength(1);
  });

  test('edit: a rule removed, the voice plan cleared, the description changed', async () => {
    const page = await openNumbers();
    await rowWith(page, '+551140000001').getByTestId('number-edit').click();
    expect(await page.getByTestId('number-description').inputValue()).toBe('Reception');
    await expect.poll(() => page.getByTestId('number-rule').count()).toBe(2);
    await page.getByTestId('rule-0-remove').click();
    // The chosen plan, chosen again, is let go.
    await chooseOption(page, 'number-voice-plan', 'Main menu');
    expect(await page.getByTestId('number-voice-plan').inputValue()).toBe('');
    await page.getByTestId('number-description').fill('Front desk');
    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number edited.').count()).toBe(1);
    expect(await storedNumber('+551140000001')).toMatchObject({
      description: 'Front desk',
      voice_plan_id: null,
      chat_plan_id: plans['Web chat bot'],
      rules: [{ caller_prefixes: [], plan_id: plans['After hours'] }],
    });
  });

  test('WhatsApp: the webhook URL to copy, a generated verification token, the token and the app secret masked and kept', async () => {
    const page = await openNumbers();
    await page.getByTestId('number-new').click();
    expect(await page.getByTestId('number-whatsapp').count()).toBe(0);
    await chooseOption(page, 'number-provider', 'WhatsApp');
    await expect.poll(() => page.getByTestId('number-webhook-pending').count()).toBe(1);
    await page.getByTestId('number-number').fill('+551140000003');
    await page.getByTestId('number-whatsapp-token').fill('EAAG-secret-token-1234');
    await page.getByTestId('number-whatsapp-app-secret').fill('meta-app-secret-9876');
    await page.getByTestId('number-phone-number-id').fill('106540352242922');
    await chooseOption(page, 'number-chat-plan', 'Web chat bot');
    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number created.').count()).toBe(1);
    const created = (await storedNumber('+551140000003'))!;
    const storedBefore = await harness.server.ctx.db.selectFrom('numbers').select(['whatsapp_token', 'whatsapp_app_secret']).where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(storedBefore.whatsapp_app_secret).not.toContain('meta-app-secret');

    await searchTable(page, '+551140000003', 1);
    await rowWith(page, '+551140000003').getByTestId('number-edit').click();
    expect(await page.getByTestId('number-webhook-url').inputValue()).toBe(`${PUBLIC_URL}/api/v1/hooks/whatsapp/${created.id}`);
    expect(await page.getByTestId('number-whatsapp-token').inputValue()).toBe('••••1234');
    expect(await page.getByTestId('number-whatsapp-app-secret').inputValue()).toBe('••••9876');
    expect((await page.getByTestId('number-verify-token').inputValue()).length).toBe(32);
    expect(await page.getByTestId('number-phone-number-id').inputValue()).toBe('106540352242922');
    await page.getByTestId('number-webhook-copy').click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);

    await page.getByTestId('number-description').fill('WhatsApp line');
    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number edited.').count()).toBe(1);
    expect(await storedNumber('+551140000003')).toMatchObject({ description: 'WhatsApp line', whatsapp_token: '••••1234', whatsapp_app_secret: '••••9876' });
    const storedAfter = await harness.server.ctx.db.selectFrom('numbers').select(['whatsapp_token', 'whatsapp_app_secret']).where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(storedAfter).toEqual(storedBefore);
  });

  test('a plan a number uses cannot be removed from the plans screen; the message names the number', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, member.username, member.password);
    await page.goto('/visual-plan');
    await searchTable(page, 'Web chat bot', 1);
    await rowWith(page, 'Web chat bot').getByTestId('plan-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect
      .poll(() => page.getByText('This plan is in use and cannot be removed.', { exact: false }).first().innerText().catch(() => ''))
      .toBe('This plan is in use and cannot be removed.\nUsed by the number +551140000001\nUsed by the number +551140000003');
    expect((await harness.server.call({ method: 'GET', url: `/visual-plans/${plans['Web chat bot']}`, token: member.token })).statusCode).toBe(200);
  });

  test('in Portuguese, at /numeros: the labels, the messages and the providers', async () => {
    const page = await openNumbers(member, { locale: 'pt-BR', path: '/numeros' });
    const dialog = page.getByRole('dialog');
    expect(await page.getByRole('columnheader', { name: 'Provedor' }).count()).toBe(1);
    await page.getByTestId('number-new').click();
    await expect.poll(() => dialog.getByText('Criar número').count()).toBe(1);
    await page.getByTestId('number-number').fill('0400');
    await page.getByTestId('rule-add').click();
    await page.getByTestId('number-save').click();
    await expect.poll(() => dialog.getByText('Informe o número em E.164: + seguido só de dígitos, até 15 (+5511400000000)').count()).toBe(1);
    expect(await dialog.getByText('Dê à regra um horário ou prefixos de origem').count()).toBe(1);
    await chooseOption(page, 'number-provider', 'WhatsApp');
    expect(await dialog.getByText('A URL do webhook aparece aqui depois que o número for salvo.').count()).toBe(1);
    expect(await dialog.getByText('Token do WhatsApp').count()).toBe(1);
  });

  test('a guest sees the numbers and opens one read-only', async () => {
    const page = await openNumbers(guest);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
    for (const testId of ['number-new', 'number-edit', 'number-remove', 'bulk-remove']) expect(await page.getByTestId(testId).count(), testId).toBe(0);
    await rowWith(page, '+551140000003').getByTestId('number-view').click();
    await expect.poll(() => page.getByTestId('number-number').inputValue()).toBe('+551140000003');
    expect(await page.getByTestId('number-whatsapp-token').inputValue()).toBe('••••1234');
    for (const testId of ['number-number', 'number-description', 'number-whatsapp-token', 'rule-add']) expect(await page.getByTestId(testId).isDisabled(), testId).toBe(true);
    expect(await page.getByTestId('number-save').count()).toBe(0);
  });

  test('the number and the caller prefixes refuse letters as they are typed', async () => {
    const page = await openNumbers();
    await page.getByTestId('number-new').click();
    await page.getByTestId('number-number').pressSequentially('+55 11 abc 4000-x');
    expect(await page.getByTestId('number-number').inputValue()).toBe('+55114000');
    await page.getByTestId('rule-add').click();
    await page.getByTestId('rule-0-prefixes').pressSequentially('+55a1b1');
    expect(await page.getByTestId('rule-0-prefixes').inputValue()).toBe('+5511');
  });

  test("WhatsApp without what Meta needs: refused on its fields, or saved as a draft with a warning that stays on the number", async () => {
    const drafter = await createTenantMember(harness.server, admin, 'numberdrafts');
    const page = await openNumbers(drafter);
    const dialog = page.getByRole('dialog');
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/numbers') posts++;
    });
    await page.getByTestId('number-new').click();
    expect(await page.getByTestId('number-save-draft').count()).toBe(0);
    await chooseOption(page, 'number-provider', 'WhatsApp');
    await page.getByTestId('number-number').fill('+551140000009');
    await page.getByTestId('number-whatsapp-token').fill('EAAG-draft-token-4321');
    await page.getByTestId('number-save').click();
    const needed = "Meta needs this to send and receive; save as a draft to finish later";
    await expect.poll(() => dialog.getByText(needed, { exact: true }).count()).toBe(2);
    // Both under the WhatsApp fields (the phone number id's and the app secret's; the token was given).
    expect(await page.getByTestId('number-whatsapp').getByText(needed, { exact: true }).count()).toBe(2);
    expect(posts).toBe(0);

    await page.getByTestId('number-save-draft').click();
    await expect.poll(() => page.getByText('Number saved as a draft: it cannot take WhatsApp messages', { exact: false }).count()).toBe(1);
    const saved = (await harness.server.call({ method: 'GET', url: '/numbers', token: drafter.token })).json<PhoneNumber[]>();
    expect(saved).toMatchObject([{ number: '+551140000009', provider: 'whatsapp', whatsapp_token: '••••4321', whatsapp_phone_number_id: '' }]);
    await expect.poll(() => rowWith(page, '+551140000009').getByTestId('number-draft-badge').count()).toBe(1);

    await rowWith(page, '+551140000009').getByTestId('number-edit').click();
    await expect.poll(() => page.getByTestId('number-whatsapp-draft').count()).toBe(1);
    await page.getByTestId('number-phone-number-id').fill('106540352242929');
    await page.getByTestId('number-whatsapp-app-secret').fill('meta-app-secret-4321');
    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number edited.').count()).toBe(1);
    await expect.poll(() => rowWith(page, '+551140000009').getByTestId('number-draft-badge').count()).toBe(0);
  });

  test('the table and the form with rules and WhatsApp pass axe-core, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openNumbers(member, { colorScheme });
      await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
      expect(await accessibilityViolations(page)).toEqual([]);
      await rowWith(page, '+551140000003').getByTestId('number-edit').click();
      await page.getByTestId('rule-add').click();
      await page.getByTestId('number-number').fill('x');
      await page.getByTestId('number-save').click();
      await expect.poll(() => page.getByRole('dialog').getByText('Give the rule a schedule or caller prefixes').count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
    }
  });
});
