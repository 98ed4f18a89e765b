import { describe, expect, test } from 'vitest';
import { checkTemplate, type TemplateAccount } from '../../../test/whatsapp-graph-templates.ts';
import { invoiceDocument, orderUpdate, pendingTemplate, promoImage, rejectedTemplate, welcomeVideo } from '../../../test/whatsapp-template-fixtures.ts';
import { AppError } from '../../errors.ts';
import { parseCurrency, parseTemplate, templateMessage, templatePlainText } from './templates.ts';

const accounts = new Map<string, TemplateAccount>([['waba-1', { token: 't', phoneNumberIds: ['pn-1'], templates: [orderUpdate, promoImage, invoiceDocument, welcomeVideo, pendingTemplate] }]]);
/** What the local Graph API (Meta's checks) answers to the message: null when taken. */
const metaAnswer = (message: ReturnType<typeof templateMessage>) => checkTemplate(accounts, 'pn-1', message as Parameters<typeof checkTemplate>[2]);
const codeOf = (answer: ReturnType<typeof metaAnswer>) => (answer?.body as { error: { code: number } } | undefined)?.error.code;
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, params: error.params } : error;
  }
  return null;
};

describe('Meta’s templates as Voxplan reads them', () => {
  test('a positional template: its header, body, footer, parameters in order and buttons', () => {
    const template = parseTemplate(orderUpdate);
    expect(template).toMatchObject({ meta_id: '1001', name: 'order_update', language: 'en_US', category: 'utility', status: 'approved', footer: 'Shop Example' });
    expect(template.header).toEqual({ format: 'text', text: 'Order {{1}}' });
    expect(template.parameters).toEqual([
      { key: 'header.1', component: 'header', type: 'text', example: '#1234' },
      { key: 'body.1', component: 'body', type: 'text', example: 'Ana' },
      { key: 'body.2', component: 'body', type: 'text', example: 'BRL 12.50' },
      { key: 'body.3', component: 'body', type: 'text', example: 'May 5' },
      { key: 'button.2', component: 'button', type: 'text', example: 'https://shop.example.com/track/abc' },
    ]);
    expect(template.buttons).toEqual([
      { index: 0, type: 'quick_reply', text: 'Confirm' },
      { index: 1, type: 'quick_reply', text: 'Cancel' },
      { index: 2, type: 'url', text: 'Track' },
    ]);
  });

  test('a named template with a media header and a copy-code button; a rejected one keeps its reason', () => {
    const template = parseTemplate(promoImage);
    expect(template.header).toEqual({ format: 'image' });
    expect(template.parameters.map((parameter) => `${parameter.key}:${parameter.type}`)).toEqual(['header.1:image', 'body.first_name:text', 'button.0:text']);
    expect(parseTemplate(rejectedTemplate)).toMatchObject({ status: 'rejected', rejected_reason: 'INVALID_FORMAT', category: 'marketing' });
  });
});

describe('a template as a Graph API message', () => {
  test('text, currency and date_time body parameters, a text header and a URL suffix, as Meta takes them', () => {
    const template = parseTemplate(orderUpdate);
    const values = { 'header.1': '#77', 'body.1': 'Ana', 'body.2': '12.50 BRL', 'body.3': 'May 5, 2027', 'button.2': 'abc' };
    const message = templateMessage(template, values, { 'body.2': 'currency', 'body.3': 'date_time' });
    expect(message).toEqual({
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: '#77' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'currency', currency: { fallback_value: '12.50 BRL', code: 'BRL', amount_1000: 12500 } },
              { type: 'date_time', date_time: { fallback_value: 'May 5, 2027' } },
            ],
          },
          { type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'abc' }] },
        ],
      },
    });
    expect(metaAnswer(message)).toBeNull();
    expect(templatePlainText(template, values)).toBe('Order #77\n\nHi Ana, your total is 12.50 BRL, due May 5, 2027.\n\nShop Example');
  });

  test('image, video and document headers go as links; a named body parameter by its name; a coupon code', () => {
    const promo = templateMessage(parseTemplate(promoImage), { 'header.1': 'https://cdn.example.com/a.jpg', 'body.first_name': 'Ana', 'button.0': 'SALE25' });
    expect(promo.type === 'template' && promo.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/a.jpg' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana', parameter_name: 'first_name' }] },
      { type: 'button', sub_type: 'copy_code', index: '0', parameters: [{ type: 'coupon_code', coupon_code: 'SALE25' }] },
    ]);
    expect(metaAnswer(promo)).toBeNull();
    const video = templateMessage(parseTemplate(welcomeVideo), { 'header.1': 'https://cdn.example.com/v.mp4' });
    expect(video.type === 'template' && video.template.components).toEqual([{ type: 'header', parameters: [{ type: 'video', video: { link: 'https://cdn.example.com/v.mp4' } }] }]);
    const invoice = templateMessage(parseTemplate(invoiceDocument), { 'header.1': 'https://cdn.example.com/i.pdf' });
    expect(invoice.type === 'template' && invoice.template.components).toEqual([{ type: 'header', parameters: [{ type: 'document', document: { link: 'https://cdn.example.com/i.pdf' } }] }]);
    expect([video, invoice].map(metaAnswer)).toEqual([null, null]);
  });

  test('a missing or badly typed value is refused before anything is sent, naming its key', () => {
    const template = parseTemplate(orderUpdate);
    const values = { 'header.1': '#77', 'body.1': 'Ana', 'body.2': '12.50', 'body.3': 'May 5', 'button.2': 'abc' };
    expect(refusal(() => templateMessage(template, { ...values, 'body.1': ' ' }))).toEqual({ code: 'template_value_missing', params: { key: 'body.1' } });
    expect(refusal(() => templateMessage(template, values, { 'body.2': 'currency' }))).toMatchObject({ code: 'template_value_invalid', params: { key: 'body.2', type: 'currency' } });
    expect(refusal(() => templateMessage(parseTemplate(promoImage), { 'header.1': 'ftp://x', 'body.first_name': 'A', 'button.0': 'C' }))).toMatchObject({ code: 'template_value_invalid', params: { key: 'header.1', type: 'image' } });
  });

  test('currency values: a code and an amount either way round, at most 3 decimals', () => {
    expect(parseCurrency('BRL 12.50')).toEqual({ code: 'BRL', amount_1000: 12500 });
    expect(parseCurrency('0.999 USD')).toEqual({ code: 'USD', amount_1000: 999 });
    expect([parseCurrency('12,50 BRL'), parseCurrency('R$ 12.50'), parseCurrency('BRL 1.2345')]).toEqual([null, null, null]);
  });

  test('the local Graph API refuses as Meta does: an unknown or unapproved template, a wrong count, a wrong format', () => {
    const order = parseTemplate(orderUpdate);
    const values = { 'header.1': '#77', 'body.1': 'Ana', 'body.2': 'x', 'body.3': 'y', 'button.2': 'abc' };
    expect(codeOf(metaAnswer(templateMessage(parseTemplate(pendingTemplate), { 'body.1': 'Ana' })))).toBe(132001);
    expect(codeOf(metaAnswer(templateMessage({ ...order, language: 'pt_BR' }, values)))).toBe(132001);
    expect(codeOf(metaAnswer(templateMessage({ ...order, parameters: order.parameters.filter((parameter) => parameter.key !== 'body.3') }, values)))).toBe(132000);
    expect(codeOf(metaAnswer(templateMessage({ ...order, parameters: order.parameters.map((parameter) => (parameter.key === 'header.1' ? { ...parameter, type: 'image' as const } : parameter)) }, { ...values, 'header.1': 'https://x.example/a.png' })))).toBe(132012);
  });
});
