import type { Action, PathEntry } from '@voxplan/engine';
import type { TFunction } from 'i18next';
import { blockTitle, blockTypeName, lookOfType, type NamedBlock, type NamingContext } from '../block-look.tsx';

/** What naming a run's blocks and records needs: the plan's blocks and the language and records' names. */
export type RunNaming = NamingContext & { nodes: readonly (NamedBlock & { id: string })[] };

const runNode = (nodeId: string, type: string, naming: RunNaming) => naming.nodes.find((candidate) => candidate.id === nodeId && candidate.type === type);

/**
 * A block a run entered, named as the canvas shows it ("Welcome", "Destination · Sales"). A block the plan no
 * longer has (removed since the run, or one of a plan reached through call_plan) is named by its type.
 */
export function runBlockName(nodeId: string, type: string, naming: RunNaming): string {
  const node = runNode(nodeId, type, naming);
  return node ? blockTitle(node, naming) : blockTypeName(type, naming.language);
}

/** One step of a run's path: the block, and the exit it left by under the exit's label. */
export function pathEntryText(entry: Pick<PathEntry, 'node_id' | 'type' | 'exit'>, naming: RunNaming, t: TFunction): string {
  const node = runBlockName(entry.node_id, entry.type, naming);
  if (entry.exit === null) return t('testPanel.pathEntry', { node });
  return t('testPanel.pathEntryLeft', { node, exit: runExitLabel(entry.node_id, entry.type, entry.exit, naming) });
}

/** The exit a run left a block by, under the label the canvas gives it ("Out of hours", a menu's option). */
export function runExitLabel(nodeId: string, type: string, exit: string, naming: RunNaming): string {
  return lookOfType(type).exitLabel(exit, runNode(nodeId, type, naming)?.data ?? {}, naming) ?? exit;
}

/** What the plan did, as the test panel's conversation tells it: records by their names, never ids. */
export function actionText(action: Action, naming: Pick<RunNaming, 'referenceName'>, t: TFunction): string {
  switch (action.type) {
    case 'say':
    case 'reply':
      return action.text;
    case 'play': {
      const name = naming.referenceName('audio', action.audio_id);
      return name === undefined ? t('testPanel.plan.playUnnamed') : t('testPanel.plan.play', { name });
    }
    case 'gather':
      return action.input === 'speech' ? t('testPanel.plan.gatherSpeech', { seconds: action.timeout_s }) : t('testPanel.plan.gatherDigits', { seconds: action.timeout_s });
    case 'dial':
      return t('testPanel.plan.dial', { name: action.name, uri: action.uri });
    case 'send_dtmf':
      return t('testPanel.plan.sendDtmf', { digits: action.digits });
    case 'record':
      return t('testPanel.plan.record', { format: action.format });
    case 'send_message':
      return t(action.status === 'sent' ? 'testPanel.plan.messageSent' : 'testPanel.plan.messageFailed', { to: action.to, text: action.text });
    case 'template':
      return action.status === 'sent' ? action.text : t('testPanel.plan.templateFailed', { name: action.name, reason: action.reason ?? '' });
    case 'hangup':
      return t('testPanel.plan.hangup', { cause: t(`testPanel.hangupCause.${action.cause}`) });
  }
}
