import { type DestinationKind, destinationKinds } from '@voxplan/contracts';

/** The kind's i18n key, for the table column, its filter and the form. */
export const kindLabelKey = (kind: DestinationKind): string => `destinations.kinds.${kind}`;

export const kindOptions = destinationKinds.map((value) => ({ value, labelKey: kindLabelKey(value) }));
