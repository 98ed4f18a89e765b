import { reportChannels, reportDialStatuses, reportDirections, reportDispositions, reportHangupCauses, reportProviders } from '@voxplan/contracts';

/** A value list of the reports and the i18n key of each value (`reports.<list>.<value>`). */
const optionsOf = (list: string, values: readonly string[]) => values.map((value) => ({ value, labelKey: `reports.${list}.${value}` }));

/** The report value lists as the screen shows and filters them, in the user's language. */
export const reportOptions = {
  channel: optionsOf('channel', reportChannels),
  provider: optionsOf('provider', reportProviders),
  direction: optionsOf('direction', reportDirections),
  disposition: optionsOf('disposition', reportDispositions),
  hangupCause: optionsOf('hangupCause', reportHangupCauses),
  dialStatus: optionsOf('dialStatus', reportDialStatuses),
} as const;

export type ReportList = keyof typeof reportOptions;

/** The i18n key of a value of a list; null values (nothing dialled, no disposition) have none. */
export function valueKey(list: ReportList, value: string | null): string | null {
  return value === null ? null : `reports.${list}.${value}`;
}
