/**
 * A plan issue in the person's language, naming blocks and exits as the canvas does. The server's
 * lint writes its messages in English with block ids, for the API; the console translates the
 * warnings by code and keeps the server's words only for what it has no text of its own for.
 */
import type { TFunction } from 'i18next';
import { blockTitle, lookOfType, type NamedBlock, type NamingContext } from './block-look.tsx';
import type { PlanIssue } from './decorations.ts';

const translated = new Set([
  'unreachable',
  'unconnected_exit',
  'voice_menu_exit_unconnected',
  'loop_without_input',
  'call_plan_cycle',
  'setting_off',
  'message_empty',
  'template_not_synced',
  'template_not_approved',
  'template_parameter_unmapped',
]);

/** The key of the template parameter an issue's path points at (`parameters.1.value` → `body.2`). */
function parameterOf(issue: PlanIssue, block: NamedBlock | undefined): string {
  const match = /^(\w+)\.(\d+)\.value$/.exec(issue.path);
  const rows = match && block ? (block.data as Record<string, unknown>)[match[1]!] : undefined;
  const row: unknown = Array.isArray(rows) ? rows[Number(match![2])] : undefined;
  const key = row !== null && typeof row === 'object' ? (row as { key?: unknown }).key : undefined;
  return typeof key === 'string' ? key : '';
}

/** A parameter's key as its field is labelled in the block's form: `body.2` → "Body 2". */
function parameterName(key: string, t: TFunction): string {
  const [part = '', place = ''] = key.split('.');
  const partName = ['header', 'body', 'button'].includes(part) ? t(`editor.issues.templateParameterParts.${part}`) : part;
  return `${partName} ${place}`.trim();
}

/** `block` is the block the issue is about, when it is known. */
export function issueText(issue: PlanIssue, block: NamedBlock | undefined, context: NamingContext, t: TFunction): string {
  if (!translated.has(issue.code)) return issue.message;
  const name = block ? blockTitle(block, context) : (issue.node_id ?? '');
  const exit = issue.path.startsWith('exits.') ? issue.path.slice('exits.'.length) : '';
  const exitName = (block && exit && lookOfType(block.type).exitLabel(exit, block.data, context)) || exit;
  if (issue.code === 'voice_menu_exit_unconnected') return t(`editor.issues.messages.voice_menu_exit_unconnected_${exit === 'timeout' ? 'timeout' : 'invalid'}`, { exit: exitName });
  return t(`editor.issues.messages.${issue.code}`, { block: name, exit: exitName, parameter: parameterName(parameterOf(issue, block), t) });
}
