/**
 * The blocks' editor parts, in the registry's order (the palette's). Adding a block is one more
 * line here; a test fails while a block type has no editor.
 *
 * The canvas's entry point (`@voxplan/blocks/editor/registry`): icons, colours, summaries, and
 * through each editor part its block's description (exits, texts). No zod is loaded from here
 * (entry-points.test.ts): the validators and forms load with the side panel.
 */
import { apiSwitchEditor } from './api_switch/editor.ts';
import { callPlanEditor } from './call_plan/editor.ts';
import { chatbotEditor } from './chatbot/editor.ts';
import { conditionEditor } from './condition/editor.ts';
import type { BlockDescription } from './core/define.ts';
import type { BlockEditor } from './core/editor/types.ts';
import { dateRangeEditor } from './date_range/editor.ts';
import { destinationEditor } from './destination/editor.ts';
import { fxEditor } from './fx/editor.ts';
import { hangupEditor } from './hangup/editor.ts';
import { httpRequestEditor } from './http_request/editor.ts';
import { playMessageEditor } from './play_message/editor.ts';
import { recordingEditor } from './recording/editor.ts';
import { sendDtmfEditor } from './send_dtmf/editor.ts';
import { sendMessageEditor } from './send_message/editor.ts';
import { speechDetectionEditor } from './speech_detection/editor.ts';
import { startEditor } from './start/editor.ts';
import { variableEditor } from './variable/editor.ts';
import { voiceChatSwitchEditor } from './voice_chat_switch/editor.ts';
import { voiceMenuEditor } from './voice_menu/editor.ts';
import { whatsappTemplateEditor } from './whatsapp_template/editor.ts';

export { connectionWarnings } from './plan/connection-warnings.ts';
export { contentWarnings } from './plan/content-warnings.ts';
export { templateWarnings, type SyncedTemplate } from './plan/template-warnings.ts';

export const blockEditors: readonly BlockEditor[] = [
  startEditor,
  destinationEditor,
  dateRangeEditor,
  playMessageEditor,
  variableEditor,
  sendMessageEditor,
  whatsappTemplateEditor,
  apiSwitchEditor,
  sendDtmfEditor,
  conditionEditor,
  voiceMenuEditor,
  speechDetectionEditor,
  httpRequestEditor,
  chatbotEditor,
  recordingEditor,
  fxEditor,
  callPlanEditor,
  hangupEditor,
  voiceChatSwitchEditor,
];

const byType: ReadonlyMap<string, BlockEditor> = new Map(blockEditors.map((editor) => [editor.type, editor]));

export function blockEditor(type: string): BlockEditor | undefined {
  return byType.get(type);
}

/** A block type's exits, references and texts, without its schema. */
export function blockDescription(type: string): BlockDescription | undefined {
  return byType.get(type)?.description;
}

export { planFormatVersion, planLabelLength } from './plan/format.ts';
export { dataWithGoal, dataWithoutGoal, goalNameLength, goalOfData } from './plan/goal.ts';
