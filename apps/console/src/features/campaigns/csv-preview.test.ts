import { describe, expect, test } from 'vitest';
import { detectDelimiter, PREVIEW_BYTES, previewCsv, previewCsvFile } from './csv-preview.ts';

describe('the contact list preview', () => {
  test('reads the header and the first rows, quotes and doubled quotes included', () => {
    const text = 'phone,name,note\r\n+5511999990001,"Silva, Ana","said ""hi"""\r\n11999990002,Bruno,\r\n';
    expect(previewCsv(text, true)).toEqual({
      delimiter: ',',
      header: ['phone', 'name', 'note'],
      rows: [
        ['+5511999990001', 'Silva, Ana', 'said "hi"'],
        ['11999990002', 'Bruno', ''],
      ],
    });
  });

  test('a spreadsheet saved in Portuguese separates with ";", and a byte-order mark is not part of the first name', () => {
    const preview = previewCsv('\uFEFFtelefone;nome;valor\n11 99999-0001;Ana;10,50\n', true);
    expect(preview?.delimiter).toBe(';');
    expect(preview?.header).toEqual(['telefone', 'nome', 'valor']);
    expect(preview?.rows).toEqual([['11 99999-0001', 'Ana', '10,50']]);
  });

  test('blank lines are skipped, short rows are padded, a quoted line break stays in its cell', () => {
    const preview = previewCsv('phone,name\n\n+5511999990001\n"+5511999990002","two\nlines"', true);
    expect(preview?.rows).toEqual([
      ['+5511999990001', ''],
      ['+5511999990002', 'two\nlines'],
    ]);
  });

  test('only the first rows are read, and a record cut at the end of a slice is left out', () => {
    const lines = ['phone', ...Array.from({ length: 20 }, (_, i) => `+55119999900${String(i).padStart(2, '0')}`)];
    expect(previewCsv(lines.join('\n'), true)?.rows).toHaveLength(5);
    expect(previewCsv('phone,name\n+5511999990001,Ana\n+5511999990002,Bru', false)?.rows).toEqual([['+5511999990001', 'Ana']]);
  });

  test('an empty file, or one with an empty header, has nothing to map', () => {
    expect(previewCsv('', true)).toBeNull();
    expect(previewCsv('\n\n', true)).toBeNull();
    expect(previewCsv(',,\n1,2,3', true)).toBeNull();
  });

  test('the delimiter inside quotes does not count', () => {
    expect(detectDelimiter('"a;b;c",d,e')).toBe(',');
    expect(detectDelimiter('a\tb\tc')).toBe('\t');
  });

  test('a big file is read from its first bytes only', async () => {
    const row = '+5511999990001,Ana\n';
    const file = new Blob([`phone,name\n${row.repeat(Math.ceil((PREVIEW_BYTES * 3) / row.length))}`]);
    const preview = await previewCsvFile(file);
    expect(preview?.header).toEqual(['phone', 'name']);
    expect(preview?.rows).toHaveLength(5);
  });
});
