import type { UseFormReturnType } from '@mantine/form';
import type { DateRange, DateRangeException, DateRangeInterval } from '@voxplan/contracts';

/** The form's values: the range's fields as the API takes them. */
export type DateRangeValues = {
  name: string;
  time_zone: string;
  intervals: DateRangeInterval[];
  exceptions: DateRangeException[];
  country: string;
  state: string;
  city: string;
};

export type DateRangeForm = UseFormReturnType<DateRangeValues>;

/** The browser's own zone, which a new range starts from. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function initialValues(range?: DateRange): DateRangeValues {
  return {
    name: range?.name ?? '',
    time_zone: range?.time_zone ?? browserZone(),
    intervals: range?.intervals.map((interval) => ({ ...interval })) ?? [],
    exceptions: range?.exceptions.map((exception) => ({ ...exception })) ?? [],
    country: range?.country ?? '',
    state: range?.state ?? '',
    city: range?.city ?? '',
  };
}
