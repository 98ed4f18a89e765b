import { type HolidayLevel, holidayLevels } from '@voxplan/contracts';

/** The level's i18n key, for the table column, its filter and the form. */
export const levelLabelKey = (level: HolidayLevel): string => `holidays.levels.${level}`;

export const levelOptions = holidayLevels.map((value) => ({ value, labelKey: levelLabelKey(value) }));
