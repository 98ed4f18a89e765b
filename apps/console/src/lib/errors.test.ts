import i18n from 'i18next';
import { beforeAll, describe, expect, test } from 'vitest';
import en from '../i18n/en.json';
import enScreens from '../i18n/en.screens.json';
import errorsEn from '../../../../packages/contracts/src/i18n/errors.en.json';
import { ApiError } from './api/client.ts';
import { errorText } from './errors.ts';

beforeAll(async () => {
  await i18n.init({ lng: 'en', resources: { en: { translation: { ...en, plans: enScreens.plans, numbers: enScreens.numbers, errors: errorsEn } } } });
});

const apiError = (body: ConstructorParameters<typeof ApiError>[1], status = 400) => new ApiError(status, body);

describe('the error display rules of spec section 8', () => {
  test('a code shows its translated text', () => {
    expect(errorText(apiError({ statusCode: 409, name: 'ConflictError', message: 'x', code: 'email_exists' }), i18n.t)).toBe(
      'This e-mail is already in use.',
    );
  });

  test('a code whose text names a value shows the value the answer carries', () => {
    const error = apiError({ statusCode: 413, name: 'PayloadTooLargeError', message: 'x', code: 'file_too_large', params: { maxSize: 10 } }, 413);
    expect(errorText(error, i18n.t)).toBe('File bigger than 10 Mbs');
  });

  test('a removal refused because plans use the record names those plans, each once', () => {
    const error = apiError(
      {
        statusCode: 409,
        name: 'ConflictError',
        message: 'x',
        code: 'plan_in_use',
        details: [
          { path: '4', message: 'plan 4 is used by the plan "Reception" (7)', plan_id: 7, plan_name: 'Reception' },
          { path: '5', message: 'plan 5 is used by the plan "Reception" (7)', plan_id: 7, plan_name: 'Reception' },
          { path: '5', message: 'plan 5 is used by the plan "Sales" (9)', plan_id: 9, plan_name: 'Sales' },
        ],
      },
      409,
    );
    expect(errorText(error, i18n.t)).toBe('This plan is in use and cannot be removed.\nUsed by the plan “Reception”\nUsed by the plan “Sales”');
  });

  test('a removal refused because numbers use the record names the numbers, each once, after the plans', () => {
    const error = apiError(
      {
        statusCode: 409,
        name: 'ConflictError',
        message: 'x',
        code: 'plan_in_use',
        details: [
          { path: '4', message: 'plan 4 is used by the number +551140000001 (3)', number_id: 3, number: '+551140000001' },
          { path: '4', message: 'plan 4 is used by the plan "Reception" (7)', plan_id: 7, plan_name: 'Reception' },
          { path: '5', message: 'plan 5 is used by the number +551140000001 (3)', number_id: 3, number: '+551140000001' },
        ],
      },
      409,
    );
    expect(errorText(error, i18n.t)).toBe('This plan is in use and cannot be removed.\nUsed by the plan “Reception”\nUsed by the number +551140000001');
  });

  test('without a specific code, the details, one per line', () => {
    const error = apiError({
      statusCode: 400,
      name: 'BadRequestError',
      message: 'Some fields are invalid.',
      code: 'invalid_input',
      details: [
        { path: 'name', message: 'Too long' },
        { path: '', message: 'Something else' },
      ],
    });
    expect(errorText(error, i18n.t)).toBe('name: Too long\nSomething else');
  });

  test('else the message, else "An error occurred"', () => {
    expect(errorText(apiError({ statusCode: 500, name: 'InternalServerError', message: 'Database unavailable' }), i18n.t)).toBe('Database unavailable');
    expect(errorText(apiError(undefined, 502), i18n.t)).toBe('An error occurred');
    expect(errorText(new TypeError('Failed to fetch'), i18n.t)).toBe('An error occurred');
  });
});
