import type { DoNotCallEntry } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, rowWith, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

let harness: ConsoleHarness;
let member: TenantMember;
beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'dnc-console');
  // National numbers are read as Brazil's: the tenant's country, not the browser's.
  await harness.server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: 'dnc-console', country: 'BR' } });
});
afterAll(() => harness.close());

const visible = (page: Page, testId: string) => page.getByTestId(testId).isVisible();

async function listed(): Promise<string[]> {
  const response = await harness.server.call({ method: 'GET', url: '/do-not-call', token: member.token });
  return response.json<DoNotCallEntry[]>().map((entry) => entry.number).sort();
}

const texts = {
  'en-US': {
    path: '/do-not-call',
    added: 'The number is on the do-not-call list.',
    summary: '1 number added · 1 already listed or repeated, skipped',
    invalidTitle: '1 line was not added',
    problem: 'Not a valid phone number',
  },
  'pt-BR': {
    path: '/nao-ligue',
    added: 'O número está na lista de não ligar.',
    summary: '1 número adicionado · 1 já na lista ou repetido, ignorado',
    invalidTitle: '1 linha não foi adicionada',
    problem: 'Não é um número de telefone válido',
  },
} as const;

describe('do-not-call', () => {
  for (const [locale, text] of Object.entries(texts)) {
    test(`${locale}: add one, import a file with a bad line and see it named, find a number by any form of it`, async () => {
      const suffix = locale === 'en-US' ? '1' : '2';
      const { page } = await harness.newPage({ locale });
      await harness.signIn(page, member.username, member.password);
      await page.goto(text.path);

      await page.getByTestId('dnc-new').click();
      await page.getByTestId('dnc-number').fill(`(11) 91234-567${suffix}`);
      await page.getByTestId('dnc-reason').fill('Asked on the phone');
      await page.getByTestId('dnc-save').click();
      await expect.poll(() => page.getByText(text.added).isVisible()).toBe(true);
      // Closed, so that it does not cover the import's summary in the screenshots.
      await page.locator('[data-toast="success"]').getByRole('button').click();
      await expect.poll(() => page.getByText(text.added).isVisible()).toBe(false);
      await expect.poll(() => rowWith(page, `+551191234567${suffix}`).isVisible()).toBe(true);

      // A header, the number added above in another form (a duplicate), a line that is no number, a new one.
      const file = ['telefone;motivo', `+55 11 91234 567${suffix};again`, 'call me later;x', `011 98888 000${suffix};e-mail`].join('\n');
      await page.getByTestId('dnc-import').click();
      await page.getByRole('dialog').locator('input[type=file]').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
      await page.getByTestId('dnc-import-submit').click();
      await expect.poll(() => page.getByTestId('dnc-import-summary').textContent()).toBe(text.summary);
      expect(await page.getByText(text.invalidTitle).isVisible()).toBe(true);
      const bad = page.getByTestId('dnc-import-invalid-line');
      expect(await bad.count()).toBe(1);
      expect(await bad.locator('td').allTextContents()).toEqual(['3', 'call me later', text.problem]);
      await screenshotStates(page, 'import-result', { group: 'do-not-call' });
      await page.getByTestId('dnc-import-close').click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      expect(await listed()).toEqual(expect.arrayContaining([`+551191234567${suffix}`, `+551198888000${suffix}`]));

      // Stored as +5511988880001; typed as a person writes it, with the trunk prefix.
      await page.getByTestId('table-search').fill(`(011) 98888-000${suffix}`);
      await expect.poll(() => page.getByTestId('table-row').allTextContents()).toEqual([expect.stringContaining(`+551198888000${suffix}`)]);
      await page.getByTestId('table-search').fill('');
      await expect.poll(() => page.getByTestId('table-row').count()).toBeGreaterThan(1);
      await screenshotStates(page, 'list', { group: 'do-not-call' });

      // At 390 px the add button stays in view.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect.poll(() => visible(page, 'dnc-new')).toBe(true);
      expect(await page.getByTestId('dnc-new').evaluate((button) => button.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
    });
  }
});
