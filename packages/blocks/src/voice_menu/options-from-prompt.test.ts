import { describe, expect, test } from 'vitest';
import { optionsFromPrompt, sameOptions } from './options-from-prompt.ts';

const sales = { digits: '1', label: 'Sales' };
const support = { digits: '2', label: 'Support' };
const vendas = { digits: '1', label: 'Vendas' };
const suporte = { digits: '2', label: 'Suporte' };

describe('a menu prompt names its options', () => {
  test.each([
    ['Press 1 for sales, 2 for support.', [sales, support]],
    ['Press 1 for sales, 2 for support', [sales, support]],
    ['press 1 for sales or 2 for support', [sales, support]],
    ['Press 1 for sales, or 2 for support.', [sales, support]],
    ['Press 1 for sales; press 2 for support.', [sales, support]],
    ['Press 1 for sales. Press 2 for support.', [sales, support]],
    ['Press 1 for sales 2 for support', [sales, support]],
    ['Welcome to Acme. Press 1 for sales, 2 for support.', [sales, support]],
    ['Dial 1 for sales and 2 for support.', [sales, support]],
    ['For sales, press 1. For support, press 2.', [sales, support]],
    ['For sales press 1, for support press 2', [sales, support]],
    ['Welcome to Acme for sales, press 1.', [sales]],
    ['Press 1 for the sales team, 2 for support, 0 to speak to an operator.', [{ digits: '1', label: 'Sales team' }, support, { digits: '0', label: 'Speak to an operator' }]],
    ['Press 1 for customer service please.', [{ digits: '1', label: 'Customer service' }]],
    ['Press * to repeat, # for the main menu.', [{ digits: '*', label: 'Repeat' }, { digits: '#', label: 'Main menu' }]],
    ['Press 11 for sales.', [{ digits: '11', label: 'Sales' }]],
    ['Press 1 for sales, 1 for support.', [sales]],
    ['Press 1 for sales, for support press 2.', [sales, support]],
    ['PRESS 1 FOR SALES', [{ digits: '1', label: 'SALES' }]],
    ['Press 1 for sales and marketing, 2 for support.', [{ digits: '1', label: 'Sales and marketing' }, support]],
  ])('%s', (prompt, options) => {
    expect(optionsFromPrompt(prompt)).toEqual(options);
  });

  test.each([
    ['Tecle 1 para vendas, 2 para suporte.', [vendas, suporte]],
    ['Digite 1 para vendas ou 2 para suporte.', [vendas, suporte]],
    ['Pressione 1 para vendas e 2 para suporte', [vendas, suporte]],
    ['Disque 1 para vendas, disque 2 para suporte.', [vendas, suporte]],
    ['Bem-vindo! Tecle 1 pra vendas; tecle 2 pra suporte.', [vendas, suporte]],
    ['Para vendas, tecle 1. Para suporte, tecle 2.', [vendas, suporte]],
    ['Para falar com vendas digite 1', [{ digits: '1', label: 'Falar com vendas' }]],
    ['Tecle 1 para o financeiro, 2 para a recepção.', [{ digits: '1', label: 'Financeiro' }, { digits: '2', label: 'Recepção' }]],
    ['Tecle 9 para serviços gerais, por favor.', [{ digits: '9', label: 'Serviços gerais' }]],
  ])('%s', (prompt, options) => {
    expect(optionsFromPrompt(prompt)).toEqual(options);
  });

  test.each([
    '',
    'Welcome to the front desk.',
    'We are open 8 to 18, Monday to Friday.',
    'Call 0800 123 for information.',
    'Enter your 6 digit account number for verification.',
    'Press 1',
    'Press 1 for',
    'Press 1 for the',
    'Press the star key to repeat.',
    'Impress 1 for sales',
    'Estamos abertos das 8 para as 18.',
    'Tecle 1',
    'Digite o seu CPF para continuar.',
  ])('names none: "%s"', (prompt) => {
    expect(optionsFromPrompt(prompt)).toEqual([]);
  });

  test('a prompt being typed names what it says so far', () => {
    expect(optionsFromPrompt('Press 1 for s')).toEqual([{ digits: '1', label: 'S' }]);
    expect(optionsFromPrompt('Press 1 for sales, 2 for')).toEqual([sales]);
  });

  test('sameOptions compares keys, labels and order', () => {
    expect(sameOptions([sales, support], [sales, support])).toBe(true);
    expect(sameOptions([sales, support], [support, sales])).toBe(false);
    expect(sameOptions([sales], [{ digits: '1', label: 'sales' }])).toBe(false);
    expect(sameOptions([], [])).toBe(true);
  });
});
