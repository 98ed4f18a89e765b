import { blockDescription } from '@voxplan/blocks/editor/registry';

/**
 * The exits a block shows while its data is being edited, when the data may not be valid yet: its
 * type's exits for the data if they can be read, else the exits every instance has. Exits that
 * edges still leave from are kept (marked unknown), so that no edge dangles unseen. The data is
 * read as it is, not parsed (the schema and zod load only with the forms): no schema default or
 * transform changes what the data exits are read from (a missing list reads as none, as its default).
 */
export function visibleExits(type: string, data: unknown, connected: readonly string[]): { exit: string; known: boolean }[] {
  const description = blockDescription(type);
  let exits: readonly string[] = [];
  if (description) {
    try {
      exits = description.exits(data);
    } catch {
      exits = description.staticExits;
    }
  }
  const shown = [...new Set(exits)].map((exit) => ({ exit, known: true }));
  for (const exit of connected) if (!exits.includes(exit)) shown.push({ exit, known: false });
  return shown;
}
