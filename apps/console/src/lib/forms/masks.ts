/**
 * Input masks of spec section 5. Each takes what the user typed and returns what the field shows;
 * they are pure so that they are tested without a browser.
 */
export type MaskKind =
  | 'number'
  | 'password'
  | 'url'
  | 'uri'
  | 'ip'
  | 'digit'
  | 'taxId'
  | 'postalCode'
  | 'phone'
  | 'e164'
  | 'callerPrefixes'
  | 'money'
  | 'shortId'
  | 'time';

const digitsOf = (raw: string) => raw.replace(/\D/g, '');

/** Fills a pattern where # takes the next digit; stops where the digits run out. */
export function fillPattern(pattern: string, digits: string): string {
  let out = '';
  let next = 0;
  for (const ch of pattern) {
    if (next >= digits.length) break;
    if (ch === '#') out += digits[next++];
    else out += ch;
  }
  return out;
}

/** Brazilian tax id: CPF (11 digits) ###.###.###-##, CNPJ (14 digits) ##.###.###/####-##. */
export function maskTaxId(raw: string): string {
  const digits = digitsOf(raw).slice(0, 14);
  return digits.length <= 11 ? fillPattern('###.###.###-##', digits) : fillPattern('##.###.###/####-##', digits);
}

/** Brazilian phone: (##) ####-#### for landlines, (##) #####-#### for mobiles. */
export function maskPhone(raw: string): string {
  const digits = digitsOf(raw).slice(0, 11);
  return digits.length <= 10 ? fillPattern('(##) ####-####', digits) : fillPattern('(##) #####-####', digits);
}

/**
 * A number as stored (E.164, spec section 3): a + then up to 15 digits; typed digits get the +
 * in front, letters and the spaces, dashes and brackets of a written number are dropped.
 */
export function maskE164(raw: string): string {
  const digits = digitsOf(raw).slice(0, 15);
  if (digits === '') return raw.trimStart().startsWith('+') ? '+' : '';
  return `+${digits}`;
}

/** Money with two decimals, typed from the right as on a till: 1234 → 12.34. */
export function maskMoney(raw: string, decimalSeparator = '.', groupSeparator = ','): string {
  const digits = digitsOf(raw).replace(/^0+(?=\d)/, '');
  if (digits === '') return '';
  const padded = digits.padStart(3, '0');
  const whole = padded.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, groupSeparator);
  return `${whole}${decimalSeparator}${padded.slice(-2)}`;
}

export function applyMask(kind: MaskKind, raw: string): string {
  switch (kind) {
    case 'number':
      return raw.replace(/[^\d.,-]/g, '').replace(/(?!^)-/g, '');
    case 'digit':
      return digitsOf(raw);
    case 'ip':
      // IPv4 and IPv6 characters only; the schema checks the address itself. Once a dot shows an
      // IPv4 address (no colon: not an IPv6 one ending in IPv4), its letters are refused too.
      return /\./.test(raw) && !raw.includes(':') ? raw.replace(/[^0-9./]/g, '') : raw.replace(/[^0-9a-fA-F.:/]/g, '');
    case 'url':
    case 'uri':
      return raw.replace(/\s/g, '');
    case 'taxId':
      return maskTaxId(raw);
    case 'postalCode':
      return fillPattern('#####-###', digitsOf(raw).slice(0, 8));
    case 'phone':
      return maskPhone(raw);
    case 'e164':
      return maskE164(raw);
    case 'callerPrefixes':
      // The typing area of a list of caller prefixes: digits, the + of E.164 and the separators that split the list.
      return raw.replace(/[^\d+,; ]/g, '');
    case 'money':
      return maskMoney(raw);
    case 'shortId':
      return raw.toLowerCase().replace(/[^a-z0-9_-]/g, '').slice(0, 32);
    case 'time':
      // HH:MM from the digits typed ("0830" → "08:30"); the schema checks the hours and minutes.
      return fillPattern('##:##', digitsOf(raw).slice(0, 4));
    case 'password':
      return raw;
  }
}

/** CPF and CNPJ check digits (mod 11), so that a mistyped number is caught before it is sent. */
export function isValidTaxId(raw: string): boolean {
  const digits = digitsOf(raw);
  if (digits.length !== 11 && digits.length !== 14) return false;
  if (/^(\d)\1+$/.test(digits)) return false;
  const check = (base: string, weights: number[]) => {
    const sum = weights.reduce((acc, weight, i) => acc + Number(base[i]) * weight, 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  if (digits.length === 11) {
    const first = check(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const second = check(digits, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return digits.endsWith(`${first}${second}`);
  }
  const first = check(digits, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = check(digits, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return digits.endsWith(`${first}${second}`);
}
