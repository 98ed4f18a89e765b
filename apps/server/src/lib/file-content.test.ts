import { attachmentLimits } from '@voxplan/contracts/attachment-limits';
import { describe, expect, test } from 'vitest';
import { contentMatches, sniffedTypes } from './file-content.ts';

const hex = (value: string) => Buffer.from(value, 'hex');
const text = (value: string) => Buffer.from(value, 'latin1');

describe('a file’s content against its declared type', () => {
  test('every type a chat channel takes has its content checked', () => {
    const taken = Object.values(attachmentLimits).flatMap((rules) => rules.flatMap((rule) => rule.types));
    expect(taken.filter((type) => !sniffedTypes.has(type))).toEqual([]);
  });

  test.each([
    ['image/jpeg', hex('ffd8ffe000104a464946')],
    ['image/png', hex('89504e470d0a1a0a0000000d')],
    ['image/gif', text('GIF89a\x01\x00')],
    ['image/webp', text('RIFF\x10\x00\x00\x00WEBPVP8 ')],
    ['audio/mpeg', text('ID3\x04\x00')],
    ['audio/mpeg', hex('fffb9064')],
    ['audio/ogg', text('OggS\x00\x02')],
    ['audio/aac', hex('fff15080')],
    ['audio/wav', text('RIFF\x24\x00\x00\x00WAVEfmt ')],
    ['audio/mp4', text('\x00\x00\x00\x20ftypM4A ')],
    ['video/mp4', text('\x00\x00\x00\x18ftypmp42')],
    ['video/webm', hex('1a45dfa39f4286')],
    ['application/pdf', text('%PDF-1.7\n')],
    ['application/zip', hex('504b030414000000')],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', hex('504b030414000600')],
    ['application/msword', hex('d0cf11e0a1b11ae10000')],
    ['text/plain', Buffer.from('Order 123\r\nthank you\tall — ção', 'utf8')],
    ['text/csv', text('name;price\nCafé;3,50\n')],
  ])('%s: its own signature is taken', (type, bytes) => {
    expect(contentMatches(type, bytes)).toBe(true);
  });

  test.each([
    ['image/png', text('<html><script>alert(1)</script>')],
    ['image/jpeg', hex('89504e470d0a1a0a')],
    ['application/pdf', text('MZ\x90\x00')],
    ['application/zip', text('%PDF-1.4')],
    ['audio/mpeg', text('<svg/>')],
    ['text/plain', text('MZ\x90\x00\x03\x00')],
    ['text/csv', text('a,b\x00c')],
    ['application/x-msdownload', text('MZ\x90\x00')],
    ['image/png', Buffer.alloc(0)],
  ])('%s: other content is refused', (type, bytes) => {
    expect(contentMatches(type, bytes)).toBe(false);
  });
});
