/**
 * What a block is, on each side. A block folder exports a definition (schema, exits, references,
 * texts: safe in the browser) and a runtime (server only); the registries list them once.
 */
import type { BlockRuntime, MaybePromise, Outcome, RuntimeNode, Turn } from '@voxplan/engine';
import type { InputEvent } from '@voxplan/engine';
import type { z } from 'zod';

/** Records the server checks exist in the tenant before it saves or publishes a plan. */
export type ReferenceKind = 'destination' | 'audio' | 'date_range' | 'plan';

export interface ReferenceField {
  /** Dotted path of the field in the block's data. */
  path: string;
  kind: ReferenceKind;
}

/**
 * A choice of a field that works only while a system setting (a boolean one, by its name) is on:
 * the editor offers it only then, and lint warns about a block that names it while it is off.
 */
export interface SettingGate {
  /** Dotted path of the field in the block's data. */
  path: string;
  option: string;
  setting: string;
}

/** The texts of a block for the editor, per language (the block folder's en.json and pt.json). */
export interface BlockTexts {
  name: string;
  description: string;
  /** Labels of the block's data fields. */
  fields: Record<string, string>;
  /** Labels of the fields of list items (options, rules, assignments), when the block has lists. */
  item_fields?: Record<string, string>;
  /** Labels of the exits that do not come from the data. */
  exits: Record<string, string>;
}

export interface BlockDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  /** The block's `data`: stored JSON keys, defaults filled in when parsed. */
  readonly schema: S;
  /** The block's exits for this data, in the order the editor shows them. */
  exits(data: z.output<S>): readonly string[];
  /** Exits every instance has, whatever its data (the ones the texts label). */
  readonly staticExits: readonly string[];
  /** Whether some exits come from the data (menu options, API cases, Lua returns). */
  readonly hasDataExits: boolean;
  readonly references: readonly ReferenceField[];
  readonly settingGates: readonly SettingGate[];
  /** Exits usually left unconnected on purpose (a `destination` answered): lint does not warn about them. */
  readonly quietExits: readonly string[];
  /**
   * Whether the block waits for something from outside (input, a dial) before it leaves. A loop
   * through blocks that never wait spins until the step limit: lint warns about it.
   */
  readonly waitsForInput: boolean;
  readonly texts: { en: BlockTexts; pt: BlockTexts };
}

export function defineBlock<const T extends string, S extends z.ZodType>(definition: {
  type: T;
  schema: S;
  exits: readonly string[] | { static: readonly string[]; of: (data: z.output<S>) => readonly string[] };
  references?: readonly ReferenceField[];
  settingGates?: readonly SettingGate[];
  quietExits?: readonly string[];
  waitsForInput?: boolean;
  texts: { en: BlockTexts; pt: BlockTexts };
}): BlockDefinition<T, S> {
  const { exits } = definition;
  const isStatic = Array.isArray(exits);
  const staticExits = isStatic ? (exits as readonly string[]) : (exits as { static: readonly string[] }).static;
  return {
    type: definition.type,
    schema: definition.schema,
    staticExits,
    hasDataExits: !isStatic,
    exits: isStatic ? () => staticExits : (exits as { of: (data: z.output<S>) => readonly string[] }).of,
    references: definition.references ?? [],
    settingGates: definition.settingGates ?? [],
    quietExits: definition.quietExits ?? [],
    waitsForInput: definition.waitsForInput ?? false,
    texts: definition.texts,
  };
}

/* Runtime side */

export interface BlockRuntimeModule<C = unknown> {
  readonly type: string;
  /** Turns validated data into what the runtime reads on every turn (templates, expressions, paths compiled). */
  compile(data: unknown): C;
  readonly runtime: BlockRuntime<C>;
}

export function defineRuntime<T extends string, S extends z.ZodType, C>(
  definition: BlockDefinition<T, S>,
  parts: {
    compile(data: z.output<S>): C;
    enter(turn: Turn, node: RuntimeNode<C>): MaybePromise<Outcome>;
    resume?(turn: Turn, node: RuntimeNode<C>, event: InputEvent): MaybePromise<Outcome | undefined>;
  },
): BlockRuntimeModule<C> {
  const runtime: BlockRuntime<C> = parts.resume ? { enter: parts.enter, resume: parts.resume } : { enter: parts.enter };
  return { type: definition.type, compile: (data) => parts.compile(data as z.output<S>), runtime };
}
