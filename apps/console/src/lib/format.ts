/** The locale numbers and dates are written in for an interface language. */
export function localeOf(language: string): string {
  return language === 'pt' ? 'pt-BR' : 'en';
}

/** A stored timestamp written for the interface language; what is not a date is shown as it came. */
function formatTimestamp(value: string | null | undefined, language: string, write: (date: Date, locale: string) => string): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return write(date, localeOf(language));
}

/** Date and time in the interface language, as the tables show them. */
export function formatDateTime(value: string | null | undefined, language: string): string | null {
  return formatTimestamp(value, language, (date, locale) => date.toLocaleString(locale));
}

/** A day in the interface language, written out (`25 de novembro de 2026`), for dates that are days rather than moments. */
export function formatDate(value: string | null | undefined, language: string): string | null {
  return formatTimestamp(value, language, (date, locale) => date.toLocaleDateString(locale, { dateStyle: 'long' }));
}

/** A number in the interface language (`1.234,5` in Portuguese); "—" when unknown. */
export function formatNumber(value: number | null | undefined, language: string, options?: Intl.NumberFormatOptions): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toLocaleString(localeOf(language), options);
}

const byteUnits = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** A size in bytes in the largest unit that keeps it at 1 or more (1,024 each step), as `12.5 GB`; "—" when unknown. */
export function formatBytes(bytes: number | null | undefined, language: string): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '—';
  let step = 0;
  while (step < byteUnits.length - 1 && bytes >= 1024 ** (step + 1)) step++;
  return formatNumber(bytes / 1024 ** step, language, { style: 'unit', unit: byteUnits[step], unitDisplay: 'short', maximumFractionDigits: step === 0 ? 0 : 1 });
}

/** A length of time as players show it (whole seconds gone by): m:ss, or h:mm:ss from an hour up; "—" when unknown. */
export function formatDuration(milliseconds: number | null | undefined): string {
  if (milliseconds === null || milliseconds === undefined || !Number.isFinite(milliseconds) || milliseconds < 0) return '—';
  const total = Math.floor(milliseconds / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}
