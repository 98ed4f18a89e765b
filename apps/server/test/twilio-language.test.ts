/**
 * A plan speaks its own language on Twilio: every `<Say>` with its `language` and a `voice` that
 * speaks it, every `<Gather>` with the `language` speech is heard in, and the server's own
 * messages in the number's tenant's language. Twilio's `<Say>` documents that a voice of another
 * language than `language` may make it fail (https://www.twilio.com/docs/voice/twiml/say), and
 * `<Gather language>` is the speech recognition language (https://www.twilio.com/docs/voice/twiml/gather).
 */
import { twilioVoiceSpeaks } from '@voxplan/contracts/voices';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { signedTwilioCallback, twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000028';
const TOKEN = 'twilio-auth-token-28';
const CALLER = '+5511988887777';
const PT_NUMBER = '+551130002801';
const EN_NUMBER = '+14155552802';
const TENANT_NUMBER = '+551130002803';
const UNPUBLISHED_NUMBER = '+551130002804';

let server: TestServer;
let member: TenantMember;

function hook(path: string, form: Record<string, string>) {
  const { url, headers, body } = signedTwilioCallback(TOKEN, PUBLIC_URL, path, form);
  return server.app.inject({ method: 'POST', url, headers, payload: body });
}

const callForm = (callSid: string, to: string, extra: Record<string, string> = {}) => twilioCallForm({ account: ACCOUNT, callSid, from: CALLER, to }, extra);

/** Each `<Say>` and `<Gather>` of a TwiML document with its attributes, in order. */
function verbs(twiml: string): Array<{ verb: 'Say' | 'Gather'; attributes: Record<string, string>; text: string }> {
  return [...twiml.matchAll(/<(Say|Gather)((?: [a-zA-Z]+="[^"]*")*)\s*\/?>([^<]*)/g)].map(([, verb, attributes, text]) => ({
    verb: verb as 'Say' | 'Gather',
    attributes: Object.fromEntries([...attributes!.matchAll(/ ([a-zA-Z]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!])),
    text: text!,
  }));
}

/** A welcome, a menu whose option 1 asks for speech, and option 2 a message in another language. */
const ivr = (settings: Record<string, unknown>, texts: { welcome: string; menu: string; ask: string; other: string; otherLanguage: string }): FixtureDocument => ({
  name: 'Language IVR',
  format_version: 1,
  settings: { session_timeout_min: 30, chat_text: '', sync_with_voice_text: false, webhook: '', ...settings },
  nodes: [
    planNode('start', 'start'),
    planNode('welcome', 'play_message', { voice_text: texts.welcome }),
    planNode('menu', 'voice_menu', { voice_text: texts.menu, invalid_text: texts.menu, options: [{ digits: '1' }, { digits: '2' }] }),
    planNode('ask', 'speech_detection', { voice_text: texts.ask, variables: [{ name: 'reason' }] }),
    planNode('other', 'play_message', { voice_text: texts.other, language: texts.otherLanguage }),
  ],
  edges: [planEdge('start', 'next', 'welcome'), planEdge('welcome', 'next', 'menu'), planEdge('menu', '1', 'ask'), planEdge('menu', '2', 'other')],
});

const portuguese = ivr(
  { language: 'pt-BR', twilio_voice: 'Polly.Camila-Neural' },
  { welcome: 'Bem-vindo à ACME.', menu: 'Para vendas, tecle 1.', ask: 'Diga o motivo da sua ligação.', other: 'Welcome, caller from abroad.', otherLanguage: 'en-US' },
);
const english = ivr(
  { language: 'en-US' },
  { welcome: 'Welcome to ACME.', menu: 'For sales press 1.', ask: 'Tell us why you are calling.', other: 'Olá, cliente do Brasil.', otherLanguage: 'pt-BR' },
);

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_URL });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'twilio-language');
  const integrations = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
  expect(integrations.statusCode, integrations.body).toBe(200);
  // The tenant speaks Portuguese: its plans that name no language, and its system messages.
  const tenant = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: 'twilio-language', language: 'pt-BR' } });
  expect(tenant.statusCode, tenant.body).toBe(200);
  expect(tenant.json<{ language: string }>().language).toBe('pt-BR');

  const number = async (phone: string, planId: number | null) => {
    const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: phone, provider: 'twilio', voice_plan_id: planId } });
    expect(response.statusCode, response.body).toBe(201);
  };
  await number(PT_NUMBER, await storePlan(server.ctx, member.tenantId, portuguese));
  await number(EN_NUMBER, await storePlan(server.ctx, member.tenantId, english, { name: 'English IVR' }));
  const tenantDefault = ivr({}, { welcome: 'Olá.', menu: 'Tecle 1.', ask: 'Fale.', other: 'Hi.', otherLanguage: 'en-US' });
  await number(TENANT_NUMBER, await storePlan(server.ctx, member.tenantId, tenantDefault, { name: 'Tenant language IVR' }));
  // A plan whose only version is a draft: its calls cannot start.
  const now = new Date().toISOString();
  const draft = await server.ctx.db
    .insertInto('visual_plans')
    .values({ tenant_id: member.tenantId, created_time: now, updated_time: now, name: 'Draft only', description: '', document: JSON.stringify(tenantDefault), version: 1, published_version: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await number(UNPUBLISHED_NUMBER, draft.id);
});

afterAll(async () => {
  await server?.close();
});

describe('a Portuguese plan on Twilio', () => {
  test('says every prompt in pt-BR with its Polly voice, and hears keys and speech in pt-BR', async () => {
    const first = await hook('voice', callForm('CA-lang-pt', PT_NUMBER));
    expect(first.statusCode, first.body).toBe(200);
    // The prompts before the menu's gather go inside it.
    expect(verbs(first.body)).toEqual([
      { verb: 'Gather', attributes: expect.objectContaining({ input: 'dtmf', language: 'pt-BR' }), text: '' },
      { verb: 'Say', attributes: { language: 'pt-BR', voice: 'Polly.Camila-Neural' }, text: 'Bem-vindo à ACME.' },
      { verb: 'Say', attributes: { language: 'pt-BR', voice: 'Polly.Camila-Neural' }, text: 'Para vendas, tecle 1.' },
    ]);

    const speech = await hook(twilioActionOf(first.body, 'Gather', PUBLIC_URL), callForm('CA-lang-pt', PT_NUMBER, { Digits: '1' }));
    expect(verbs(speech.body)).toEqual([
      { verb: 'Gather', attributes: expect.objectContaining({ input: 'speech', language: 'pt-BR' }), text: '' },
      { verb: 'Say', attributes: { language: 'pt-BR', voice: 'Polly.Camila-Neural' }, text: 'Diga o motivo da sua ligação.' },
    ]);
  });

  test('a block in English is said in en-US by an English voice, not by the plan’s Portuguese one', async () => {
    const first = await hook('voice', callForm('CA-lang-pt-2', PT_NUMBER));
    const other = await hook(twilioActionOf(first.body, 'Gather', PUBLIC_URL), callForm('CA-lang-pt-2', PT_NUMBER, { Digits: '2' }));
    expect(verbs(other.body)).toEqual([{ verb: 'Say', attributes: { language: 'en-US', voice: 'Polly.Joanna' }, text: 'Welcome, caller from abroad.' }]);
  });
});

describe('an English plan on Twilio', () => {
  test('says every prompt in en-US with the language’s first voice (none chosen), and hears in en-US', async () => {
    const first = await hook('voice', callForm('CA-lang-en', EN_NUMBER));
    expect(verbs(first.body)).toEqual([
      { verb: 'Gather', attributes: expect.objectContaining({ input: 'dtmf', language: 'en-US' }), text: '' },
      { verb: 'Say', attributes: { language: 'en-US', voice: 'Polly.Joanna' }, text: 'Welcome to ACME.' },
      { verb: 'Say', attributes: { language: 'en-US', voice: 'Polly.Joanna' }, text: 'For sales press 1.' },
    ]);
    const speech = await hook(twilioActionOf(first.body, 'Gather', PUBLIC_URL), callForm('CA-lang-en', EN_NUMBER, { Digits: '1' }));
    expect(verbs(speech.body)).toEqual([
      { verb: 'Gather', attributes: expect.objectContaining({ input: 'speech', language: 'en-US' }), text: '' },
      { verb: 'Say', attributes: { language: 'en-US', voice: 'Polly.Joanna' }, text: 'Tell us why you are calling.' },
    ]);
    const invalid = await hook(twilioActionOf(speech.body, 'Gather', PUBLIC_URL), callForm('CA-lang-en', EN_NUMBER, { SpeechResult: '' }));
    for (const { verb, attributes } of verbs(invalid.body)) {
      expect(attributes.language, verb).toBe('en-US');
      if (verb === 'Say') expect(twilioVoiceSpeaks(attributes.voice!, 'en-US')).toBe(true);
    }
  });

  test('a block in Portuguese is said in pt-BR by a Portuguese voice', async () => {
    const first = await hook('voice', callForm('CA-lang-en-2', EN_NUMBER));
    const other = await hook(twilioActionOf(first.body, 'Gather', PUBLIC_URL), callForm('CA-lang-en-2', EN_NUMBER, { Digits: '2' }));
    expect(verbs(other.body)).toEqual([{ verb: 'Say', attributes: { language: 'pt-BR', voice: 'Polly.Camila' }, text: 'Olá, cliente do Brasil.' }]);
  });
});

describe('the tenant’s language', () => {
  test('a plan that names no language speaks the tenant’s', async () => {
    const first = await hook('voice', callForm('CA-lang-tenant', TENANT_NUMBER));
    const attributes = verbs(first.body).map((verb) => verb.attributes.language);
    expect(attributes).toEqual(['pt-BR', 'pt-BR', 'pt-BR']);
  });

  test('a call whose plan cannot start hears so in the tenant’s language', async () => {
    const response = await hook('voice', callForm('CA-lang-unpublished', UNPUBLISHED_NUMBER));
    expect(response.statusCode, response.body).toBe(200);
    expect(verbs(response.body)).toEqual([
      { verb: 'Say', attributes: { language: 'pt-BR', voice: 'Polly.Camila' }, text: 'Este serviço não está disponível no momento. Por favor, ligue mais tarde. Até logo.' },
    ]);
    expect(response.body).toContain('<Hangup/>');
  });

  test('a number no tenant has hears the server’s language', async () => {
    const response = await hook('voice', callForm('CA-lang-nobody', '+15005550006'));
    expect(verbs(response.body)).toEqual([
      { verb: 'Say', attributes: { language: 'en-US', voice: 'Polly.Joanna' }, text: 'The number you have called is not in service. Goodbye.' },
    ]);
  });
});
