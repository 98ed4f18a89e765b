import { describe, expect, test } from 'vitest';
import { attachmentLimits, bytesPerMb, checkAttachment, largestAttachment } from './attachment-limits.ts';

describe('what each chat provider takes as a file', () => {
  test('WhatsApp: Meta’s types by kind and sizes (images 5 MB), parameters and case ignored; no WebP (a sticker), nothing unknown', () => {
    expect(checkAttachment('whatsapp', 'image/png', 5 * bytesPerMb)).toMatchObject({ ok: true, rule: { kind: 'image' } });
    expect(checkAttachment('whatsapp', 'image/png', 5 * bytesPerMb + 1)).toEqual({ ok: false, code: 'attachment_too_large', maxBytes: 5 * bytesPerMb });
    expect(checkAttachment('whatsapp', 'Audio/OGG; codecs=opus', 1000)).toMatchObject({ ok: true, rule: { kind: 'audio' } });
    expect(checkAttachment('whatsapp', 'application/pdf', 1000)).toMatchObject({ ok: true, rule: { kind: 'document' } });
    expect(checkAttachment('whatsapp', 'image/webp', 1000)).toEqual({ ok: false, code: 'attachment_type_not_supported' });
    expect(checkAttachment('whatsapp', '', 1000)).toEqual({ ok: false, code: 'attachment_type_not_supported' });
  });

  test('voice providers take none; the web chat and the simulator take the same, never HTML or SVG', () => {
    expect(checkAttachment('twilio', 'image/png', 10)).toEqual({ ok: false, code: 'attachment_type_not_supported' });
    expect(largestAttachment('asterisk')).toBe(0);
    expect(attachmentLimits.simulator).toBe(attachmentLimits.webchat);
    for (const type of ['text/html', 'image/svg+xml', 'application/javascript']) expect(checkAttachment('webchat', type, 10).ok).toBe(false);
    expect(largestAttachment('webchat')).toBe(10 * bytesPerMb);
  });
});
