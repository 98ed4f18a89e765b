/**
 * The blocks, once. Adding a block is adding its folder, one line here and one line in
 * runtime-registry.ts (where the compiler refuses a block type without a runtime).
 */
import { apiSwitchBlock } from './api_switch/definition.ts';
import { callPlanBlock } from './call_plan/definition.ts';
import { chatbotBlock } from './chatbot/definition.ts';
import { conditionBlock } from './condition/definition.ts';
import type { z } from 'zod';
import type { BlockDefinition } from './core/define.ts';
import { dateRangeBlock } from './date_range/definition.ts';
import { destinationBlock } from './destination/definition.ts';
import { fxBlock } from './fx/definition.ts';
import { hangupBlock } from './hangup/definition.ts';
import { httpRequestBlock } from './http_request/definition.ts';
import { playMessageBlock } from './play_message/definition.ts';
import { recordingBlock } from './recording/definition.ts';
import { sendDtmfBlock } from './send_dtmf/definition.ts';
import { sendMessageBlock } from './send_message/definition.ts';
import { speechDetectionBlock } from './speech_detection/definition.ts';
import { startBlock } from './start/definition.ts';
import { variableBlock } from './variable/definition.ts';
import { voiceChatSwitchBlock } from './voice_chat_switch/definition.ts';
import { voiceMenuBlock } from './voice_menu/definition.ts';
import { whatsappTemplateBlock } from './whatsapp_template/definition.ts';

export const blockDefinitions = [
  startBlock,
  destinationBlock,
  dateRangeBlock,
  playMessageBlock,
  variableBlock,
  sendMessageBlock,
  whatsappTemplateBlock,
  apiSwitchBlock,
  sendDtmfBlock,
  conditionBlock,
  voiceMenuBlock,
  speechDetectionBlock,
  httpRequestBlock,
  chatbotBlock,
  recordingBlock,
  fxBlock,
  callPlanBlock,
  hangupBlock,
  voiceChatSwitchBlock,
] as const;

type Definitions = (typeof blockDefinitions)[number];
export type BlockType = Definitions['type'];
/** The validated `data` of a block type, defaults filled in. */
export type BlockData<T extends BlockType> = Extract<Definitions, { type: T }> extends BlockDefinition<T, infer S> ? z.output<S> : never;

export const blockTypes = blockDefinitions.map((definition) => definition.type) as readonly BlockType[];

const byType: ReadonlyMap<string, BlockDefinition> = new Map(blockDefinitions.map((definition) => [definition.type, definition as BlockDefinition]));

export function blockDefinition(type: string): BlockDefinition | undefined {
  return byType.get(type);
}

export const isBlockType = (type: string): type is BlockType => byType.has(type);

/** The exits of a node whose data is valid (its type's exits for its data). */
export function exitsOf(node: { type: string; data: unknown }): readonly string[] {
  return byType.get(node.type)?.exits(node.data) ?? [];
}
