import type { CustomIssueCode } from '../core/fields.ts';

/** What structural validation and lint report (docs/engine.md, "Plan validation"). */
export type PlanErrorCode =
  | 'unsupported_format'
  | 'invalid_field'
  | CustomIssueCode
  | 'unknown_block_type'
  | 'duplicate_id'
  | 'missing_start'
  | 'multiple_starts'
  | 'unknown_node'
  | 'unknown_exit'
  | 'exit_already_connected'
  | 'plan_calls_itself'
  /** A destination, audio, date range or plan the tenant does not have (found by the server). */
  | 'reference_not_found';

export type PlanWarningCode =
  | 'unreachable'
  | 'unconnected_exit'
  | 'voice_menu_exit_unconnected'
  | 'loop_without_input'
  | 'call_plan_cycle'
  | 'setting_off'
  | 'message_empty'
  /** WhatsApp templates, against the tenant's synced ones (template-warnings.ts). */
  | 'template_not_synced'
  | 'template_not_approved'
  | 'template_parameter_unmapped';

export interface PlanIssue<C extends string = PlanErrorCode | PlanWarningCode> {
  code: C;
  message: string;
  /** The node the issue is about; `path` is then inside its `data` (or `type`, `id` for those fields). */
  node_id?: string;
  /** The edge the issue is about; `path` is then one of its fields. */
  edge_id?: string;
  /** Dotted path (`options.0.digits`); relative to the node's data, the edge, or the document. */
  path: string;
}
