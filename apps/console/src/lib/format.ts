/** Date and time in the interface language, as the tables show them. */
export function formatDateTime(value: string | null | undefined, language: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(language === 'pt' ? 'pt-BR' : 'en');
}
