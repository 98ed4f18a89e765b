import { describe, expect, test } from 'vitest';
import { destinationCreateSchema, destinationUpdateSchema, isValidDestinationUri } from './destination.ts';

describe('isValidDestinationUri', () => {
  test.each([
    'sip:100@pbx.example.com',
    'sips:100@pbx.example.com',
    'SIP:Alice@PBX.Example.COM',
    'sip:pbx.example.com',
    'sip:pbx.example.com.',
    'sip:100@pbx.example.com:5060',
    'sip:100@pbx.example.com;transport=tcp;lr',
    'sip:100@pbx.example.com:5061;transport=tls?subject=call',
    'sip:alice:secret@pbx.example.com',
    'sip:+5511999990000@10.0.0.5',
    'sip:100@[2001:db8::1]:5060',
    'sip:*99#@pbx',
    'tel:+5511999990000',
    'tel:+55-11-9999-0000',
    'tel:+1-(201)-555-0123',
    'tel:100;phone-context=pbx.example.com',
    'tel:*21#',
    'tel:+5511999990000;ext=22',
  ])('voice accepts %j', (uri) => {
    expect(isValidDestinationUri('voice', uri)).toBe(true);
  });

  test.each([
    '',
    '100',
    'pbx.example.com',
    'sip:',
    'sip:100@',
    'sip:@pbx.example.com',
    'sip:100@pbx@example.com',
    'sip:100 @pbx.example.com',
    'sip:100@pbx..example.com',
    'sip:100@-pbx.example.com',
    'sip:100@pbx.example.com:0',
    'sip:100@pbx.example.com:65536',
    'sip:100@pbx.example.com:port',
    'sip:100@300.0.0.1',
    'sip:100@10.0.0',
    'sip:100@[2001:db8::1::2]',
    'sip:100@2001:db8::1',
    'sip:100@pbx.example.123',
    'sip://pbx.example.com',
    'tel:',
    'tel:+',
    'tel:---',
    'tel:+55 11 9999 0000',
    'tel:call-me',
    'tel:+5511;',
    'https://chat.example.com',
    'mailto:someone@example.com',
  ])('voice refuses %j', (uri) => {
    expect(isValidDestinationUri('voice', uri)).toBe(false);
  });

  test.each(['https://chat.example.com', 'HTTPS://Chat.Example.com/bot?id=7#top', 'https://10.0.0.5:8443/hook', 'https://[2001:db8::1]/chat'])(
    'chat accepts %j',
    (uri) => {
      expect(isValidDestinationUri('chat', uri)).toBe(true);
    },
  );

  test.each([
    'http://chat.example.com',
    'https:chat.example.com',
    'https:/chat.example.com',
    'https://',
    'https:///path',
    'https://chat.example.com/a b',
    'ftp://chat.example.com',
    'chat.example.com',
    'sip:100@pbx.example.com',
    'wss://chat.example.com',
  ])('chat refuses %j', (uri) => {
    expect(isValidDestinationUri('chat', uri)).toBe(false);
  });
});

const uriIssues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).filter((issue) => issue.path[0] === 'uri').map((issue) => issue.message);

describe('the destination schemas', () => {
  test('a URI that does not suit its kind names the translation key of that kind', () => {
    expect(uriIssues(destinationCreateSchema.safeParse({ name: 'a', kind: 'voice', uri: 'https://chat.example.com' }))).toEqual(['invalidVoiceUri']);
    expect(uriIssues(destinationCreateSchema.safeParse({ name: 'a', kind: 'chat', uri: 'sip:100@pbx.example.com' }))).toEqual(['invalidChatUri']);
  });

  test('the URI is checked after trimming, and the trimmed value is kept', () => {
    const parsed = destinationCreateSchema.parse({ name: ' Reception ', kind: 'voice', uri: '  sip:100@pbx.example.com ' });
    expect(parsed).toEqual({ name: 'Reception', kind: 'voice', uri: 'sip:100@pbx.example.com', description: '', agent_ids: [], closing_message_en: '', closing_message_pt: '' });
  });

  test('the URI is checked even when the name is missing, so that both mistakes show at once', () => {
    const result = destinationCreateSchema.safeParse({ kind: 'voice', uri: 'pbx' });
    expect(result.error?.issues.map((issue) => issue.path[0])).toEqual(['name', 'uri']);
  });

  test('a URI with its own mistake, or an unknown kind, gets one message, not two', () => {
    expect(uriIssues(destinationCreateSchema.safeParse({ name: 'a', kind: 'voice', uri: `sip:${'1'.repeat(500)}@pbx` }))).toHaveLength(1);
    const unknownKind = destinationCreateSchema.safeParse({ name: 'a', kind: 'fax', uri: 'pbx' });
    expect(unknownKind.error?.issues.map((issue) => issue.path[0])).toEqual(['kind']);
  });

  test('a patch is checked when it sends both the kind and the URI, and left to the server when it sends one', () => {
    expect(uriIssues(destinationUpdateSchema.safeParse({ kind: 'chat', uri: 'tel:+5511999990000' }))).toEqual(['invalidChatUri']);
    expect(destinationUpdateSchema.safeParse({ kind: 'chat' }).success).toBe(true);
    expect(destinationUpdateSchema.safeParse({ uri: 'anything' }).success).toBe(true);
  });

  test('a chat queue takes no URI, a URL destination needs one, and a voice destination has no chat target', () => {
    expect(destinationCreateSchema.safeParse({ name: 'a', kind: 'chat', chat_target: 'queue', agent_ids: [1] }).success).toBe(true);
    expect(uriIssues(destinationCreateSchema.safeParse({ name: 'a', kind: 'chat', chat_target: 'queue', uri: 'https://chat.example.com' }))).toEqual(['queueTakesNoUri']);
    expect(uriIssues(destinationCreateSchema.safeParse({ name: 'a', kind: 'chat' }))).toEqual(['invalidChatUri']);
    const voice = destinationCreateSchema.safeParse({ name: 'a', kind: 'voice', uri: 'sip:1@pbx.example.com', chat_target: 'queue' });
    expect(voice.error?.issues.map((issue) => [issue.path[0], issue.message])).toEqual([['chat_target', 'voiceHasNoChatTarget']]);
  });
});
