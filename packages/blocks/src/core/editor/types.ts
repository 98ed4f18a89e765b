/**
 * What the editor needs of a block, beside its description: an icon, a summary for the node body,
 * hints for the generic form and, only where that form cannot serve, a form of the block's own.
 * The console provides the services (pickers' records, audio playback, language); the blocks never
 * import the console.
 */
import type { ComponentType } from 'react';
import type { BlockDescription, ReferenceKind } from '../define.ts';

export type EditorLanguage = 'en' | 'pt';

/** A record a picker offers (a destination, an audio, a date range, a plan). */
export interface PickerOption {
  value: number;
  label: string;
}

/** What the console lends the block editors. */
export interface EditorServices {
  language: EditorLanguage;
  /** Guests see every field, changed by none. */
  readOnly: boolean;
  /** The tenant's records of a kind, for pickers and for naming a reference in a summary. */
  useReferenceOptions(kind: ReferenceKind): { options: readonly PickerOption[]; loading: boolean };
  /** Plays one of the tenant's audios (the console fetches it with the user's token). */
  playAudio?(audioId: number): void;
  /** Variable names offered after `{{` in template fields: the built-ins and those the plan assigns. */
  variableNames: readonly string[];
  /** Whether a system setting a choice depends on (the definitions' `settingGates`) is on now. */
  isSettingOn(setting: string): boolean;
  /** The tenant's synced WhatsApp templates (every number's), for the template pickers; absent: none to offer. */
  useWhatsAppTemplates?(): { templates: readonly WhatsAppTemplateChoice[]; loading: boolean };
}

/** A synced WhatsApp template as a picker offers it (docs/channels-whatsapp.md, "Templates"). */
export interface WhatsAppTemplateChoice {
  name: string;
  /** Meta's language code (`pt_BR`). */
  language: string;
  /** Meta's status: only `approved` ones are sent (`pending`, `rejected`, `paused`, `disabled` are not). */
  status: string;
  /** Each parameter as Meta types it, keyed `header.1`, `body.1`, `button.0`; `example` is Meta's sample value. */
  parameters: ReadonlyArray<{ key: string; type: string; example?: string }>;
  /** The texts of its quick-reply buttons, in order. */
  quickReplies: readonly string[];
}

/** How the generic form shows a field, where the schema alone does not say. */
export type FieldHint =
  | { kind: 'template'; multiline?: boolean }
  | { kind: 'value' }
  | { kind: 'expression' }
  | { kind: 'json' }
  | { kind: 'code'; language: 'lua' }
  /** A language of the voices list, '' standing for the plan's (or the tenant's). */
  | { kind: 'language' }
  /** Phone keys (0-9, * and #, a menu option's): anything else is refused as it is typed. */
  | { kind: 'keys' }
  /**
   * A WhatsApp template chosen among the synced ones, on its name field: the form fills the fields
   * named here (its language, one parameter row per parameter, its quick replies) as it is chosen,
   * and shows each parameter's type and Meta's example. `when`: shown only while that field holds that value.
   */
  | { kind: 'whatsapp_template'; language: string; parameters: string; buttons?: string; optional?: boolean; when?: { key: string; value: string } }
  | { kind: 'hidden' };

/** What the summary of a node may read besides its data. */
export interface SummaryContext {
  language: EditorLanguage;
  /** The name of a referenced record, when the console has it. */
  referenceName(kind: ReferenceKind, id: number | null | undefined): string | undefined;
}

export interface BlockFormProps {
  data: Record<string, unknown>;
  onChange(data: Record<string, unknown>): void;
  /** Errors by path inside the data (`options.0.digits`), already in the user's language or as the server said. */
  issues: ReadonlyMap<string, string>;
  services: EditorServices;
}

export interface BlockEditor {
  readonly type: string;
  /** Its exits and texts, without the schema: the canvas draws the block from these and the editor part alone, zod unloaded. */
  readonly description: BlockDescription;
  readonly icon: ComponentType<{ size?: number | string; stroke?: number }>;
  /** A Mantine colour name: the node's accent and the palette entry's. */
  readonly color: string;
  /** A short text (one or two lines) of what the node does with its data, for the node body. */
  summary(data: unknown, context: SummaryContext): string;
  /** By the field's path in the schema, list indices left out (`options.label`, `rules.left`). */
  readonly fieldHints: Readonly<Record<string, FieldHint>>;
  /**
   * The label of an exit that comes from the data (a menu option's label beside its keys); the
   * exits every instance has are labelled by the block's texts.
   */
  exitLabel?(exit: string, data: unknown, language: EditorLanguage): string | undefined;
  /**
   * The data of a block just added from the palette, when the schema's defaults alone are not a
   * usable block (a voice menu starts with one option).
   */
  readonly initialData?: Readonly<Record<string, unknown>>;
  /**
   * Fields the form fills from others while the person has not made them their own (a menu's
   * options from its prompt's text). The generic form applies it to every change it makes.
   */
  readonly derived?: DerivedFields;
  /** A form of the block's own, where the generic renderer cannot serve. */
  readonly Form?: ComponentType<BlockFormProps>;
}

export interface DerivedFields {
  /** The data after a change of the person's, with the derived fields refilled where they are still untouched. */
  apply(next: Record<string, unknown>, previous: Record<string, unknown>): Record<string, unknown>;
  /** The paths of the fields that hold what was derived now: the form says so beside them (`texts.filled_from_prompt`). */
  filled(data: Record<string, unknown>): readonly string[];
}
