import { describe, expect, test } from 'vitest';
import { guessColumns, mappingProblems, toMapping, variableNameOf } from './column-mapping.ts';

describe('the contact list column mapping', () => {
  test('the phone, name and time zone are guessed from their headers in English or Portuguese; the rest become variables', () => {
    const choices = guessColumns({ delimiter: ';', header: ['Nome', 'Telefone', 'Fuso horário', 'Valor devido', '2ª via'], rows: [] });
    expect(choices.map(({ role, variable }) => [role, variable])).toEqual([
      ['name', 'nome'],
      ['phone', 'telefone'],
      ['time_zone', 'fuso_horario'],
      ['variable', 'valor_devido'],
      ['variable', '_2a_via'],
    ]);
    expect(toMapping(choices, ';')).toEqual({
      phone: 'Telefone',
      name: 'Nome',
      time_zone: 'Fuso horário',
      variables: { 'Valor devido': 'valor_devido', '2ª via': '_2a_via' },
      delimiter: ';',
    });
  });

  test('with no phone header, the first column whose sample looks like a number is the phone', () => {
    const choices = guessColumns({ delimiter: ',', header: ['who', 'contact_at', 'amount'], rows: [['Ana', '+55 (11) 99999-0001', '10.50']] });
    expect(choices.map((choice) => choice.role)).toEqual(['variable', 'phone', 'variable']);
  });

  test('no phone, a role twice, a bad or repeated variable name are problems', () => {
    const base = guessColumns({ delimiter: ',', header: ['phone', 'amount', 'due'], rows: [] });
    expect(mappingProblems(base)).toEqual([]);
    expect(mappingProblems(base.map((choice) => ({ ...choice, role: 'ignore' as const })))).toEqual([{ kind: 'phone_missing' }]);
    expect(mappingProblems(base.map((choice) => ({ ...choice, role: 'phone' as const })))).toEqual([{ kind: 'role_twice', role: 'phone' }]);
    const [phone, amount, due] = base;
    expect(mappingProblems([phone!, { ...amount!, variable: '9lives' }, { ...due!, variable: 'amount' }])).toEqual([{ kind: 'variable_invalid', column: 'amount' }]);
    expect(mappingProblems([phone!, amount!, { ...due!, variable: 'amount' }])).toEqual([{ kind: 'variable_twice', column: 'due' }]);
  });

  test('ignored columns are left out of the mapping', () => {
    const choices = guessColumns({ delimiter: ',', header: ['phone', 'notes'], rows: [] });
    expect(toMapping([choices[0]!, { ...choices[1]!, role: 'ignore' }], ',')).toEqual({ phone: 'phone', variables: {}, delimiter: ',' });
  });

  test('a header with nothing usable still gives a name', () => {
    expect(variableNameOf('***')).toBe('column');
    expect(variableNameOf('a'.repeat(80))).toHaveLength(64);
  });
});
