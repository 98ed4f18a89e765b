/**
 * The list stores E.164 (+5511912345678); people search as they write ("(11) 91234-5678",
 * "011 91234 5678", "+55 11 …"). Their digits, without the leading zeros of a trunk or an
 * international prefix, are a run of the stored number's: matching on them finds it in any form.
 */
export function phoneSearchClauses(search: string): Record<string, unknown>[] {
  const digits = search.replace(/\D/g, '').replace(/^0+/, '');
  // A word with a digit or two in it ("2nd request") is no number: the fields' own search serves.
  if (digits.length < 3) return [];
  return [{ number: { like: `%${digits}%` } }];
}
