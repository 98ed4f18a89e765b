import { describe, expect, it } from 'vitest';
import { CsvRecordCounter } from './csv-export.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('counting the rows of a CSV as it arrives', () => {
  it('counts the rows after the header, across chunks cut anywhere', () => {
    const text = 'id,caller\n1,+5511\n2,+5512\n3,+5513\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const counter = new CsvRecordCounter();
      counter.push(bytes(text.slice(0, cut)));
      counter.push(bytes(text.slice(cut)));
      expect(counter.rows).toBe(3);
    }
  });

  it('does not count a line break inside a quoted field, nor one after a doubled quote', () => {
    const counter = new CsvRecordCounter();
    counter.push(bytes('id,variables\n1,"{""note"":""two\nlines""}"\n2,"a,\r\nb"\n'));
    expect(counter.rows).toBe(2);
  });

  it('is at zero until the header has ended', () => {
    const counter = new CsvRecordCounter();
    counter.push(bytes('id,cal'));
    expect(counter.rows).toBe(0);
  });
});
