import type { Destination } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, q, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, isFocused, rowWith, searchTable, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let admin: string;
let member: TenantMember;
let other: TenantMember;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'desttenant');
  other = await createTenantMember(harness.server, admin, 'otherdest');
});
afterAll(() => harness.close());

const stored = async (who: TenantMember = member): Promise<Destination[]> =>
  (await harness.server.call({ method: 'GET', url: `/destinations?${q('filter', { order: ['id ASC'] })}`, token: who.token })).json<Destination[]>();

async function openDestinations(who: TenantMember = member, locale = 'en-US'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, who.username, who.password);
  await page.goto('/destination');
  await page.getByTestId('destination-new').waitFor();
  return page;
}

/** The URI field's hint (Mantine's description) and placeholder. */
const uriHelp = async (page: Page) => ({
  hint: await page.getByRole('dialog').getByText(/^(A SIP URI|An https URL)/).textContent(),
  placeholder: await page.getByTestId('destination-uri').getAttribute('placeholder'),
});

describe('destinations screen', () => {
  test('a member creates a voice and a chat destination; the URI hint follows the kind', async () => {
    const page = await openDestinations();
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);

    await page.getByTestId('destination-new').click();
    expect(await uriHelp(page)).toEqual({
      hint: 'A SIP URI (sip:100@pbx.example.com) or a tel URI (tel:+5511999990000)',
      placeholder: 'sip:100@pbx.example.com',
    });
    await page.getByTestId('destination-name').fill('Reception');
    // The URI mask drops spaces as they are typed.
    await page.getByTestId('destination-uri').pressSequentially('sip:100@ pbx.example.com');
    expect(await page.getByTestId('destination-uri').inputValue()).toBe('sip:100@pbx.example.com');
    await page.getByTestId('destination-description').fill('Front desk');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination created.').count()).toBe(1);
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await page.getByTestId('destination-new').click();
    await chooseOption(page, 'destination-kind', 'Chat');
    expect(await uriHelp(page)).toEqual({ hint: 'An https URL that receives the chat', placeholder: 'https://chat.example.com/bot' });
    await page.getByTestId('destination-name').fill('Website bot');
    await page.getByTestId('destination-uri').fill('https://chat.example.com/bot');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination created.').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);

    expect(await rowWith(page, 'Reception').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['Reception', 'Voice', 'sip:100@pbx.example.com', 'Front desk']),
    );
    expect(await rowWith(page, 'Website bot').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['Website bot', 'Chat', 'https://chat.example.com/bot', '—']),
    );
    expect(await stored()).toEqual([
      expect.objectContaining({ name: 'Reception', kind: 'voice', uri: 'sip:100@pbx.example.com', description: 'Front desk', tenant_id: member.tenantId }),
      expect.objectContaining({ name: 'Website bot', kind: 'chat', uri: 'https://chat.example.com/bot', description: '', tenant_id: member.tenantId }),
    ]);
  });

  test('errors per field and a duplicate URI, in English and in Portuguese', async () => {
    for (const [locale, texts] of [
      [
        'en-US',
        {
          required: 'Required',
          voice: 'Enter a SIP URI (sip:100@pbx.example.com) or a tel URI (tel:+5511999990000)',
          chat: 'Enter an https URL (https://chat.example.com/bot)',
          chatKind: 'Chat',
          voiceKind: 'Voice',
          duplicate: 'A destination with this URI already exists.',
        },
      ],
      [
        'pt-BR',
        {
          required: 'Obrigatório',
          voice: 'Informe uma URI SIP (sip:100@pbx.example.com) ou tel (tel:+5511999990000)',
          chat: 'Informe uma URL https (https://chat.example.com/bot)',
          chatKind: 'Chat',
          voiceKind: 'Voz',
          duplicate: 'Já existe um destino com esta URI.',
        },
      ],
    ] as const) {
      const page = await openDestinations(member, locale);
      const dialog = page.getByRole('dialog');
      await page.getByTestId('destination-new').click();

      // Nothing filled: the name is required, and the URI says what it wants (a chat queue takes none, so it may be empty).
      await page.getByTestId('destination-save').click();
      await expect.poll(() => dialog.getByText(texts.required).count()).toBe(1);
      await expect.poll(() => dialog.getByText(texts.voice).count()).toBe(1);

      // No name and a URI that is no SIP or tel URI: both said at once.
      for (const uri of ['pbx.example.com', 'sip:100@', 'tel:call-me', 'https://chat.example.com/bot']) {
        await page.getByTestId('destination-uri').fill(uri);
        await page.getByTestId('destination-save').click();
        // Both at once, polled together: the form clears its errors and then sets them again on save.
        await expect.poll(() => Promise.all([dialog.getByText(texts.voice).count(), dialog.getByText(texts.required).count()])).toEqual([1, 1]);
      }
      expect(await page.getByTestId('destination-uri').getAttribute('aria-invalid')).toBe('true');

      // The same kind of mistake for a chat: it wants https.
      await page.getByTestId('destination-name').fill('Bad');
      await chooseOption(page, 'destination-kind', texts.chatKind);
      for (const uri of ['http://chat.example.com/bot', 'sip:100@pbx.example.com']) {
        await page.getByTestId('destination-uri').fill(uri);
        await page.getByTestId('destination-save').click();
        await expect.poll(() => dialog.getByText(texts.chat).count()).toBe(1);
      }
      expect(await dialog.getByText(texts.required).count()).toBe(0);

      // A valid URI the tenant already has: the server's answer lands on the URI field.
      await chooseOption(page, 'destination-kind', texts.voiceKind);
      await page.getByTestId('destination-uri').fill('sip:100@pbx.example.com');
      await page.getByTestId('destination-save').click();
      await expect.poll(() => dialog.getByText(texts.duplicate).count()).toBe(1);
      expect(await page.getByTestId('destination-uri').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByTestId('destination-uri').inputValue()).toBe('sip:100@pbx.example.com');
    }
    expect(await stored()).toHaveLength(2);
  });

  test('a refused save takes the person to the first field in error, unless they have already gone to another field', async () => {
    const page = await openDestinations();
    const dialog = page.getByRole('dialog');
    await page.getByTestId('destination-new').click();
    const [name, uri] = [page.getByTestId('destination-name'), page.getByTestId('destination-uri')];
    await uri.fill('pbx.example.com');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => isFocused(name)).toBe(true);

    // Saved, then at once into the URI to fix it (what a loaded machine or a quick hand does): the
    // refusal, rendered after, leaves the focus where the person went, and what they type lands there.
    await dialog.evaluate((element) => {
      const save = element.querySelector<HTMLButtonElement>('[data-testid="destination-save"]')!;
      save.focus();
      save.click();
      element.querySelector<HTMLInputElement>('[data-testid="destination-uri"]')!.focus();
    });
    await expect.poll(() => Promise.all([name.getAttribute('aria-invalid'), uri.getAttribute('aria-invalid')])).toEqual(['true', 'true']);
    // The refusal's focus is a task after its render.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(await isFocused(uri)).toBe(true);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('sip:100@pbx.example.com');
    expect([await name.inputValue(), await uri.inputValue()]).toEqual(['', 'sip:100@pbx.example.com']);
  });

  test('edit in the prefilled modal: a kind the URI does not suit is refused, then both change together', async () => {
    const page = await openDestinations();
    await searchTable(page, 'Reception', 1);
    await page.getByTestId('destination-edit').click();
    expect(await page.getByTestId('destination-name').inputValue()).toBe('Reception');
    expect(await page.getByTestId('destination-uri').inputValue()).toBe('sip:100@pbx.example.com');
    expect(await page.getByTestId('destination-description').inputValue()).toBe('Front desk');

    await chooseOption(page, 'destination-kind', 'Chat');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByRole('dialog').getByText('Enter an https URL (https://chat.example.com/bot)').count()).toBe(1);
    expect((await stored())[0]).toMatchObject({ kind: 'voice', uri: 'sip:100@pbx.example.com' });

    await page.getByTestId('destination-name').fill('Reception chat');
    await page.getByTestId('destination-uri').fill('https://chat.example.com/reception');
    await page.getByTestId('destination-description').fill('');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination edited.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: 'https://chat.example.com/reception' }).count()).toBe(1);
    expect((await stored())[0]).toMatchObject({ name: 'Reception chat', kind: 'chat', uri: 'https://chat.example.com/reception', description: '' });
  });

  test("another tenant's member sees none of them, and may use the same URI", async () => {
    const page = await openDestinations(other);
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    await page.getByTestId('destination-new').click();
    await page.getByTestId('destination-name').fill('Their bot');
    await chooseOption(page, 'destination-kind', 'Chat');
    await page.getByTestId('destination-uri').fill('https://chat.example.com/bot');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination created.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    expect(await stored(other)).toEqual([expect.objectContaining({ name: 'Their bot', uri: 'https://chat.example.com/bot', tenant_id: other.tenantId })]);
    expect(await stored()).toHaveLength(2);
  });

  test('the table with rows and the form with an error pass axe-core in the dark scheme', async () => {
    const { page } = await harness.newPage({ colorScheme: 'dark' });
    await harness.signIn(page, member.username, member.password);
    await page.goto('/destination');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByTestId('destination-new').click();
    await page.getByTestId('destination-uri').fill('pbx');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByRole('dialog').getByText('Required').count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  test('remove one with the confirm dialog, then the rest in bulk', async () => {
    const extra = await harness.server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'Night line', kind: 'voice', uri: 'tel:+5511999990000' } });
    expect(extra.statusCode, extra.body).toBe(201);
    const page = await openDestinations();
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(3);

    await rowWith(page, 'Website bot').getByTestId('destination-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
    expect((await stored()).map((row) => row.name)).toEqual(['Reception chat', 'Night line']);

    await page.getByRole('checkbox', { name: 'Select all rows' }).check();
    await page.getByTestId('bulk-remove').click();
    await expect.poll(() => page.getByText('Remove 2 records? This cannot be undone.').count()).toBe(1);
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('2 records removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    expect(await stored()).toEqual([]);
    // The other tenant's destination is untouched.
    expect(await stored(other)).toHaveLength(1);
  });
});
