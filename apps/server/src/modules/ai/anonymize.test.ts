import { expect, test } from 'vitest';
import { anonymizeStructured } from './anonymize.ts';

test.each([
  ['e-mail', 'write to joao.silva+vendas@empresa.com.br today', 'write to [email] today'],
  ['CPF with punctuation', 'CPF 123.456.789-09.', 'CPF [cpf].'],
  ['CPF bare', 'meu cpf é 12345678909', 'meu cpf é [cpf]'],
  ['CNPJ with punctuation', 'CNPJ 12.345.678/0001-95', 'CNPJ [cnpj]'],
  ['CNPJ bare', 'cnpj 12345678000195', 'cnpj [cnpj]'],
  ['phone with country and area code', 'ligue +55 (81) 98765-4321 ok', 'ligue [phone] ok'],
  ['landline with area code', 'fixo 81 3456-7890', 'fixo [phone]'],
  ['mobile without area code', 'celular 98765 4321', 'celular [phone]'],
])('%s is replaced', (_kind, text, expected) => {
  expect(anonymizeStructured(text)).toBe(expected);
});

test('what has no personal shape is left alone: amounts, dates, order numbers of other lengths', () => {
  const text = 'Pedido 4521 de R$ 199,90 em 25/11/2026, entrega em 3 dias.';
  expect(anonymizeStructured(text)).toBe(text);
});
