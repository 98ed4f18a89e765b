/**
 * The column mapping of a contact list as the upload dialog holds it (one choice per column of the
 * header) and as the API takes it (`campaignContactMappingSchema`): the phone, a name, a time zone,
 * and other columns as plan variables under the names the plan will see.
 */
import type { CampaignContactMappingInput } from '@voxplan/contracts';
import type { CsvPreview } from './csv-preview.ts';

export const columnRoles = ['phone', 'name', 'time_zone', 'variable', 'ignore'] as const;
export type ColumnRole = (typeof columnRoles)[number];

export interface ColumnChoice {
  /** The header's name, as the server will find it. */
  column: string;
  role: ColumnRole;
  /** The plan variable's name (role `variable`). */
  variable: string;
}

/** The engine's variable names (the contract's pattern). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Header names people give these columns, in English and Portuguese, without accents or case. */
const guesses: Record<'phone' | 'name' | 'time_zone', readonly string[]> = {
  phone: ['phone', 'phone_number', 'telephone', 'mobile', 'cell', 'number', 'msisdn', 'telefone', 'celular', 'numero', 'fone', 'whatsapp'],
  name: ['name', 'full_name', 'contact', 'nome', 'nome_completo', 'contato', 'cliente'],
  time_zone: ['time_zone', 'timezone', 'tz', 'zone', 'fuso', 'fuso_horario'],
};

/** A header as a variable name: accents dropped, other characters as `_`, not starting with a digit. */
export function variableNameOf(header: string): string {
  const plain = header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  const name = /^[0-9]/.test(plain) ? `_${plain}` : plain;
  return (name || 'column').slice(0, 64);
}

/**
 * The first guess for each column: the phone, name and time zone by their header names (else the
 * phone is the first column whose sample looks like a number), every other column a variable.
 */
export function guessColumns(preview: CsvPreview): ColumnChoice[] {
  const taken = new Set<ColumnRole>();
  const choices = preview.header.map((column): ColumnChoice => {
    const key = variableNameOf(column);
    const role = (Object.keys(guesses) as ('phone' | 'name' | 'time_zone')[]).find((candidate) => !taken.has(candidate) && guesses[candidate].includes(key));
    if (role) {
      taken.add(role);
      return { column, role, variable: key };
    }
    return { column, role: 'variable', variable: key };
  });
  if (!taken.has('phone')) {
    const looksLikeNumber = (value: string) => /^\+?[\d\s().-]{6,}$/.test(value.trim());
    const index = preview.header.findIndex((_, i) => preview.rows.some((row) => looksLikeNumber(row[i] ?? '')));
    if (index >= 0) choices[index] = { ...choices[index]!, role: 'phone' };
  }
  return choices;
}

export type MappingProblem = { kind: 'phone_missing' } | { kind: 'role_twice'; role: ColumnRole } | { kind: 'variable_invalid' | 'variable_twice'; column: string };

/** What keeps the choices from being sent; empty when they are fine. */
export function mappingProblems(choices: ColumnChoice[]): MappingProblem[] {
  const problems: MappingProblem[] = [];
  for (const role of ['phone', 'name', 'time_zone'] as const) {
    const count = choices.filter((choice) => choice.role === role).length;
    if (role === 'phone' && count === 0) problems.push({ kind: 'phone_missing' });
    if (count > 1) problems.push({ kind: 'role_twice', role });
  }
  const seen = new Set<string>();
  for (const choice of choices) {
    if (choice.role !== 'variable') continue;
    if (!VARIABLE_NAME.test(choice.variable)) problems.push({ kind: 'variable_invalid', column: choice.column });
    else if (seen.has(choice.variable)) problems.push({ kind: 'variable_twice', column: choice.column });
    seen.add(choice.variable);
  }
  return problems;
}

/** The mapping the API takes (choices without problems). */
export function toMapping(choices: ColumnChoice[], delimiter: CsvPreview['delimiter']): CampaignContactMappingInput {
  const of = (role: ColumnRole) => choices.find((choice) => choice.role === role)?.column;
  const nameColumn = of('name');
  const zoneColumn = of('time_zone');
  return {
    phone: of('phone') ?? '',
    ...(nameColumn && { name: nameColumn }),
    ...(zoneColumn && { time_zone: zoneColumn }),
    variables: Object.fromEntries(choices.filter((choice) => choice.role === 'variable').map((choice) => [choice.column, choice.variable])),
    delimiter,
  };
}
