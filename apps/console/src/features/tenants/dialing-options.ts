import { phoneCountries } from '@voxplan/contracts';

export interface Option {
  value: string;
  label: string;
}

/** The countries a tenant may dial from, named in the user's language and sorted in it. */
export function countryOptions(language: string): Option[] {
  const names = new Intl.DisplayNames([language], { type: 'region', fallback: 'code' });
  const collator = new Intl.Collator(language);
  return phoneCountries
    .map((code) => ({ value: code, label: `${names.of(code) ?? code} · ${code}` }))
    .sort((a, b) => collator.compare(a.label, b.label));
}

/** The IANA zones the browser knows, as they are written (America/Sao_Paulo). */
export function timeZoneOptions(current: string): Option[] {
  const zones = Intl.supportedValuesOf('timeZone');
  // A zone stored under another name (UTC, an alias) is still shown as chosen.
  if (current !== '' && !zones.includes(current)) zones.push(current);
  return zones.map((zone) => ({ value: zone, label: zone.replaceAll('_', ' ') }));
}
