/**
 * What a form dialog does with its record, and the catalogue key of its title under the screen's
 * namespace (`users.editTitle`). A dialog that changes a record is opened read-only by a guest and
 * titled by the namespace's `viewTitle` instead; `npm run check` asks for one beside each of those.
 */
export const dialogTitleKeys = { create: 'createTitle', edit: 'editTitle', rename: 'renameTitle' } as const;
export type DialogMode = keyof typeof dialogTitleKeys;

/** The modes a guest sees read-only, and the key of the title shown then. */
export const readOnlyModes: readonly DialogMode[] = ['edit', 'rename'];
export const viewTitleKey = 'viewTitle';
