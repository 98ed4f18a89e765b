import { describe, expect, test } from 'vitest';
import { decodeCsvText, NotTextError, readCsvText, sniffDelimiter } from './csv-reader.ts';

describe('csv: a file read whole (a do-not-call list)', () => {
  test('quoted cells hold separators, doubled quotes and line breaks; records keep their first line; blank lines are left out', () => {
    const text = 'number,reason\r\n"+55 11 91234-5678","asked, twice"\r\n\r\n011 3333-4444,"said ""stop""\nby phone"\r\nlast,\r\n';
    expect(readCsvText(text)).toEqual([
      { line: 1, fields: ['number', 'reason'] },
      { line: 2, fields: ['+55 11 91234-5678', 'asked, twice'] },
      { line: 4, fields: ['011 3333-4444', 'said "stop"\nby phone'] },
      { line: 6, fields: ['last', ''] },
    ]);
  });

  test('a plain list, bare LF, a byte-order mark and no final line end', () => {
    expect(readCsvText('\uFEFF(11) 91234-5678\n\n  +1 415 555 0123')).toEqual([
      { line: 1, fields: ['(11) 91234-5678'] },
      { line: 3, fields: ['  +1 415 555 0123'] },
    ]);
  });

  test('the separator is the first line’s most frequent of , ; and tab', () => {
    expect(sniffDelimiter('numero;motivo\n1,2;3')).toBe(';');
    expect(sniffDelimiter('a\tb\tc')).toBe('\t');
    expect(sniffDelimiter('"a;b",c\n')).toBe(',');
    expect(sniffDelimiter('(11) 91234-5678')).toBe(',');
    expect(readCsvText('numero;motivo\n11 91234-5678;pediu, por e-mail\n')).toEqual([
      { line: 1, fields: ['numero', 'motivo'] },
      { line: 2, fields: ['11 91234-5678', 'pediu, por e-mail'] },
    ]);
  });

  test('a quote left open, or text after a closing quote, marks its record with the line it starts on', () => {
    expect(readCsvText('a\nb\n"c,d\ne').at(-1)).toMatchObject({ line: 3, malformed: 'unclosed_quote' });
    expect(readCsvText('"a"b,c')[0]).toMatchObject({ line: 1, malformed: 'text_after_quote' });
    // A quote inside an unquoted cell is kept as written, as spreadsheets read it.
    expect(readCsvText('a\nab"c,d')[1]).toEqual({ line: 2, fields: ['ab"c', 'd'] });
  });

  test('bytes that are not UTF-8 text are refused', () => {
    expect(decodeCsvText(new TextEncoder().encode('número\n'))).toBe('número\n');
    expect(() => decodeCsvText(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]))).toThrow(NotTextError);
    expect(() => decodeCsvText(Uint8Array.from([0xff, 0xfe, 0x41]))).toThrow(NotTextError);
  });
});
