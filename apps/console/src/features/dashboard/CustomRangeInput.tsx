import '@mantine/dates/styles.css';
import { DatePickerInput, DatesProvider } from '@mantine/dates';
import 'dayjs/locale/pt-br';
import { useTranslation } from 'react-i18next';
import type { DayText } from './period.ts';

/** The custom period's first and last days (loaded only when a custom period is chosen). */
export default function CustomRangeInput({ value, onChange }: { value: [DayText | null, DayText | null]; onChange(value: [DayText | null, DayText | null]): void }) {
  const { t, i18n } = useTranslation();
  return (
    <DatesProvider settings={{ locale: i18n.language === 'pt' ? 'pt-br' : 'en' }}>
      <DatePickerInput
        type="range"
        label={t('dashboard.period.range')}
        placeholder={t('dashboard.period.rangePlaceholder')}
        value={value}
        onChange={(range) => onChange([range[0], range[1]])}
        valueFormat="D MMM YYYY"
        allowSingleDateInRange
        w={260}
        ariaLabels={{
          nextMonth: t('dashboard.period.nextMonth'),
          previousMonth: t('dashboard.period.previousMonth'),
          nextYear: t('dashboard.period.nextYear'),
          previousYear: t('dashboard.period.previousYear'),
          nextDecade: t('dashboard.period.nextDecade'),
          previousDecade: t('dashboard.period.previousDecade'),
          monthLevelControl: t('dashboard.period.monthLevel'),
          yearLevelControl: t('dashboard.period.yearLevel'),
        }}
        data-testid="period-range"
      />
    </DatesProvider>
  );
}
