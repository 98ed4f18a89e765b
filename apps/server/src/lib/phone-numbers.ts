/**
 * Phone numbers as people type them (a contact list's column, a do-not-call entry, an outbound
 * call's `to`) brought to E.164, the one form the server stores and compares: libphonenumber's
 * metadata knows each country's trunk prefix and lengths, which no regular expression of ours would.
 */
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Whether `country` is an ISO 3166-1 alpha-2 code libphonenumber has a numbering plan for. */
export const isPhoneCountry = (country: string): country is CountryCode => isSupportedCountry(country);

/**
 * The number in E.164, or null when it is not a possible number of a real numbering plan.
 * `defaultCountry` (ISO 3166-1 alpha-2, the tenant's) reads a national number ("(11) 91234-5678");
 * a number written with `+` or `00` keeps its own country.
 */
export function toE164(raw: string, defaultCountry?: string): string | null {
  const text = raw.trim().replace(/^00/, '+');
  if (text === '') return null;
  const parsed = parsePhoneNumberFromString(text, defaultCountry && isPhoneCountry(defaultCountry) ? defaultCountry : undefined);
  return parsed?.isValid() ? parsed.number : null;
}
