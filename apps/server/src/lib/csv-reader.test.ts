import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CsvReader, CsvTooLongError, readCsv } from './csv-reader.ts';

async function readAll(chunks: (string | Uint8Array)[], delimiter?: string) {
  const records = [];
  for await (const record of readCsv(
    (async function* () {
      yield* chunks;
    })(),
    { ...(delimiter && { delimiter }) },
  )) {
    records.push(record);
  }
  return records;
}

describe('csv reader (RFC 4180)', () => {
  test('quoted fields hold delimiters, line breaks and doubled quotes; lines are counted from the file', async () => {
    const text = 'phone,name\r\n+5511912345678,"Silva, Ana"\r\n"+14155550123","He said ""hi""\nand left"\n+351912345678,Rui';
    expect(await readAll([text])).toEqual([
      { line: 1, fields: ['phone', 'name'] },
      { line: 2, fields: ['+5511912345678', 'Silva, Ana'] },
      { line: 3, fields: ['+14155550123', 'He said "hi"\nand left'] },
      { line: 5, fields: ['+351912345678', 'Rui'] },
    ]);
  });

  test('the same records whatever the chunks: split inside quotes, CRLF and multi-byte characters', async () => {
    const bytes = new TextEncoder().encode('\uFEFFtelefone;nome\r\n"1199";"João ""J"""\r\n2;ç\r\n');
    const whole = await readAll([bytes], ';');
    expect(whole).toEqual([
      { line: 1, fields: ['telefone', 'nome'] },
      { line: 2, fields: ['1199', 'João "J"'] },
      { line: 3, fields: ['2', 'ç'] },
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await readAll([bytes.slice(0, cut), bytes.slice(cut)], ';')).toEqual(whole);
    }
  });

  test('a quote left open, or text after a closing quote, marks that record malformed', async () => {
    expect(await readAll(['a,b\n"x"y,1\n2,3\n"open,4\n'])).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['xy', '1'], malformed: 'text_after_quote' },
      { line: 3, fields: ['2', '3'] },
      { line: 4, fields: ['open,4\n'], malformed: 'unclosed_quote' },
    ]);
  });

  test('bytes that are no UTF-8 throw; a record past the limit throws with its line', async () => {
    await expect(readAll([new Uint8Array([0x61, 0xff, 0x0a])])).rejects.toThrow(TypeError);
    const reader = new CsvReader({ maxRecordChars: 10 });
    expect(reader.push('a,b\n')).toHaveLength(1);
    expect(() => reader.push('"0123456789abc')).toThrow(CsvTooLongError);
  });

  test('property: writing fields per RFC 4180 and reading them back gives the same fields', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', 'é') });
    fc.assert(
      fc.property(fc.array(fc.array(field, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 7 }), (rows, chunk) => {
        const text = rows.map((row) => row.map((value) => `"${value.replaceAll('"', '""')}"`).join(',')).join('\r\n');
        const reader = new CsvReader();
        const records = [];
        for (let start = 0; start < text.length; start += chunk) records.push(...reader.push(text.slice(start, start + chunk)));
        records.push(...reader.end());
        expect(records.map((record) => record.fields)).toEqual(rows);
        expect(records.every((record) => !record.malformed)).toBe(true);
      }),
    );
  });
});
