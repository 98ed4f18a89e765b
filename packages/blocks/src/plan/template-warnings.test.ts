import { expect, test } from 'vitest';
import { templateWarnings } from './template-warnings.ts';

const synced = [
  { name: 'order_ready', language: 'pt_BR', status: 'approved', parameters: [{ key: 'body.1' }, { key: 'body.2' }] },
  { name: 'promo', language: 'en_US', status: 'paused', parameters: [] },
];
const block = (data: Record<string, unknown>) => ({ id: 't', type: 'whatsapp_template', data: { template_name: 'order_ready', language: 'pt_BR', parameters: [], buttons: [], ...data } });

test('a parameter left unmapped is flagged on its row, and no more once it is mapped', () => {
  const partly = block({ parameters: [{ key: 'body.1', value: '{{name}}' }, { key: 'body.2', value: ' ' }] });
  expect(templateWarnings([partly], synced)).toEqual([expect.objectContaining({ code: 'template_parameter_unmapped', node_id: 't', path: 'parameters.1.value' })]);
  const mapped = block({ parameters: [{ key: 'body.1', value: '{{name}}' }, { key: 'body.2', value: '42' }] });
  expect(templateWarnings([mapped], synced)).toEqual([]);
});

test('a template not approved, or not synced (any more), is flagged on its name', () => {
  expect(templateWarnings([block({ template_name: 'promo', language: 'en_US' })], synced)).toEqual([expect.objectContaining({ code: 'template_not_approved', path: 'template_name' })]);
  expect(templateWarnings([block({ language: 'en_US' })], synced)).toEqual([expect.objectContaining({ code: 'template_not_synced', path: 'template_name' })]);
});

test("a send_message's fallback is checked on WhatsApp only; no template chosen is no warning", () => {
  const fallback = { fallback_template_name: 'promo', fallback_language: 'en_US', fallback_parameters: [] };
  expect(templateWarnings([{ id: 's', type: 'send_message', data: { channel: 'whatsapp', ...fallback } }], synced)).toEqual([expect.objectContaining({ code: 'template_not_approved', path: 'fallback_template_name' })]);
  expect(templateWarnings([{ id: 's', type: 'send_message', data: { channel: 'sms', ...fallback } }], synced)).toEqual([]);
  expect(templateWarnings([block({ template_name: '' })], synced)).toEqual([]);
});
