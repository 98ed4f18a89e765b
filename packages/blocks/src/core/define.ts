/**
 * What a block is, on each side. A block folder exports a description (exits, references, texts:
 * no zod), a definition (the description and its schema: safe in the browser) and a runtime
 * (server only); the registries list them once.
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

/**
 * What a block is, without its schema: its exits, references, setting gates and texts. The canvas
 * draws every block from this alone, so the validators (zod, about 25 KB gzip) load only with the
 * forms; `definition.ts` adds the schema to it. `D` is what the data exits are read from: the
 * schema's output must fit it (defineBlock checks).
 */
export interface BlockDescription<T extends string = string, D = unknown> {
  readonly type: T;
  /** The block's exits for this data, in the order the editor shows them. */
  exits(data: D): readonly string[];
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
  /**
   * The exit taken when what the block sent cannot reach the customer (a reply withheld outside
   * WhatsApp's customer window): the engine's `RuntimeNode.errorExit`.
   */
  readonly errorExit?: string;
  readonly texts: { en: BlockTexts; pt: BlockTexts };
}

export interface BlockDefinition<T extends string = string, S extends z.ZodType = z.ZodType> extends BlockDescription<T, z.output<S>> {
  /** The block's `data`: stored JSON keys, defaults filled in when parsed. */
  readonly schema: S;
}

/** A block folder's `description.ts`: everything of the block but its schema. */
export function describeBlock<const T extends string, D = unknown>(description: {
  type: T;
  exits: readonly string[] | { static: readonly string[]; of: (data: D) => readonly string[] };
  references?: readonly ReferenceField[];
  settingGates?: readonly SettingGate[];
  quietExits?: readonly string[];
  waitsForInput?: boolean;
  errorExit?: string;
  texts: { en: BlockTexts; pt: BlockTexts };
}): BlockDescription<T, D> {
  const { exits } = description;
  const isStatic = Array.isArray(exits);
  const staticExits = isStatic ? (exits as readonly string[]) : (exits as { static: readonly string[] }).static;
  return {
    type: description.type,
    staticExits,
    hasDataExits: !isStatic,
    exits: isStatic ? () => staticExits : (exits as { of: (data: D) => readonly string[] }).of,
    references: description.references ?? [],
    settingGates: description.settingGates ?? [],
    quietExits: description.quietExits ?? [],
    waitsForInput: description.waitsForInput ?? false,
    ...(description.errorExit !== undefined && { errorExit: description.errorExit }),
    texts: description.texts,
  };
}

/** A block folder's `definition.ts`: its description and the schema of its data. */
export function defineBlock<const T extends string, D, S extends z.ZodType<D>>(description: BlockDescription<T, D>, schema: S): BlockDefinition<T, S> {
  return { ...description, schema };
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
