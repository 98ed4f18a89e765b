/**
 * Personal data with a fixed shape, replaced before a transcript goes to any analysis. Names have
 * no shape: the model removes them afterwards (ai-port.ts). The order matters: a CNPJ holds a
 * CPF-like run of digits, and a bare CPF looks like a phone number.
 */
const patterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, '[email]'],
  [/\b\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2}\b/g, '[cnpj]'],
  [/\b\d{3}\.?\d{3}\.?\d{3}-?\d{2}\b/g, '[cpf]'],
  // +55 (81) 98765-4321, 81 3456 7890, 987654321: country and area codes optional, 8 or 9 digits.
  [/(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,3}\)\s?|\b\d{2,3}[\s.-])?\b\d{4,5}[\s.-]?\d{4}\b/g, '[phone]'],
];

export function anonymizeStructured(text: string): string {
  return patterns.reduce((result, [pattern, label]) => result.replace(pattern, label), text);
}
