import { configurationCreateSchema, systemSettings, systemSettingType } from '@voxplan/contracts';
import type { TFunction } from 'i18next';

// The contract's defaults, applied by the server when the field is left empty.
export const DEFAULT_TYPE = configurationCreateSchema.shape.type.parse(undefined);
export const DEFAULT_CATEGORY = configurationCreateSchema.shape.category.parse(undefined);

/**
 * The categories and types the console knows: those of the system settings and the defaults. They
 * are stored as identifiers (the spec names the type "sistema") and shown in the user's language;
 * an administrator's own category or type is shown as written.
 */
export const knownCategories = [...new Set([DEFAULT_CATEGORY, ...Object.values(systemSettings).map((setting) => setting.category)])].sort();
export const knownTypes = [systemSettingType, DEFAULT_TYPE];

export const categoryOptions = knownCategories.map((value) => ({ value, labelKey: `settings.categories.${value}` }));
export const typeOptions = knownTypes.map((value) => ({ value, labelKey: `settings.types.${value}` }));

export const categoryLabel = (category: string, t: TFunction): string =>
  knownCategories.includes(category) ? t(`settings.categories.${category}`) : category;
export const typeLabel = (type: string, t: TFunction): string => (knownTypes.includes(type) ? t(`settings.types.${type}`) : type);
