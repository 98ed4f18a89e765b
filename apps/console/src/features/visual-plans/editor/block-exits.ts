import { blockDefinition } from '@voxplan/blocks/definitions';

/**
 * The exits a block shows while its data is being edited, when the data may not be valid yet: its
 * type's exits for the data if they can be read, else the exits every instance has. Exits that
 * edges still leave from are kept (marked unknown), so that no edge dangles unseen.
 */
export function visibleExits(type: string, data: unknown, connected: readonly string[]): { exit: string; known: boolean }[] {
  const definition = blockDefinition(type);
  let exits: readonly string[] = [];
  if (definition) {
    const parsed = definition.schema.safeParse(data);
    try {
      exits = definition.exits(parsed.success ? parsed.data : data);
    } catch {
      exits = definition.staticExits;
    }
  }
  const shown = [...new Set(exits)].map((exit) => ({ exit, known: true }));
  for (const exit of connected) if (!exits.includes(exit)) shown.push({ exit, known: false });
  return shown;
}
