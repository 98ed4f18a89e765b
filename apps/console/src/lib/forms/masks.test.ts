import { describe, expect, test } from 'vitest';
import { applyMask, isValidTaxId, maskMoney } from './masks.ts';

describe('input masks', () => {
  test.each([
    ['taxId', '12345678909', '123.456.789-09'],
    ['taxId', '11222333000181', '11.222.333/0001-81'],
    ['taxId', '1234', '123.4'],
    ['postalCode', '01310100', '01310-100'],
    ['postalCode', '0131-0100 extra', '01310-100'],
    ['phone', '1133334444', '(11) 3333-4444'],
    ['phone', '11987654321', '(11) 98765-4321'],
    ['digit', 'a1b2c3', '123'],
    ['ip', '192.168.0.1/24 x', '192.168.0.1/24'],
    ['ip', '10.0.0.a', '10.0.0.'],
    ['ip', 'fe80::1/64', 'fe80::1/64'],
    ['ip', '::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['e164', '+55 (11) 4000-0000', '+551140000000'],
    ['e164', '5511abc4', '+55114'],
    ['e164', 'abc', ''],
    ['e164', '+', '+'],
    ['e164', '+1234567890123456789', '+123456789012345'],
    ['callerPrefixes', '+55x11, 21;31', '+5511, 21;31'],
    ['shortId', 'My Plan #1', 'myplan1'],
    ['url', ' https://a.example/x y', 'https://a.example/xy'],
    ['time', '0830', '08:30'],
    ['time', '8:3', '83'],
    ['time', '24:00h', '24:00'],
    ['time', '12:345', '12:34'],
  ] as const)('%s mask turns %s into %s', (kind, raw, shown) => {
    expect(applyMask(kind, raw)).toBe(shown);
  });

  test('money is typed from the right with two decimals', () => {
    expect(maskMoney('5')).toBe('0.05');
    expect(maskMoney('123456')).toBe('1,234.56');
    expect(maskMoney('123456', ',', '.')).toBe('1.234,56');
    expect(maskMoney('')).toBe('');
  });

  test('CPF and CNPJ check digits', () => {
    expect(isValidTaxId('123.456.789-09')).toBe(true);
    expect(isValidTaxId('123.456.789-00')).toBe(false);
    expect(isValidTaxId('11.222.333/0001-81')).toBe(true);
    expect(isValidTaxId('11.222.333/0001-80')).toBe(false);
    expect(isValidTaxId('111.111.111-11')).toBe(false);
  });
});
