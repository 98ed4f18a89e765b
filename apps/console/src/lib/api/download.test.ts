import { describe, expect, test } from 'vitest';
import { attachmentName } from './download.ts';

describe('the name of a downloaded file', () => {
  test('is the UTF-8 name when the server sends one, else the plain one', () => {
    expect(attachmentName(`attachment; filename="Recep??o.json"; filename*=UTF-8''Recep%C3%A7%C3%A3o.json`)).toBe('Recepção.json');
    expect(attachmentName('attachment; filename="Sales line.json"')).toBe('Sales line.json');
  });

  test('is unknown without a header, or with one that names no file or does not parse', () => {
    expect(attachmentName(null)).toBeUndefined();
    expect(attachmentName('attachment')).toBeUndefined();
    expect(attachmentName('attachment; filename=')).toBeUndefined();
  });
});
