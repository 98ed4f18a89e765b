/**
 * Each block type's runtime. Keyed by type and checked against the definitions' list, so a block
 * without a runtime does not compile.
 */
import { apiSwitchRuntime } from './api_switch/runtime.ts';
import { callPlanRuntime } from './call_plan/runtime.ts';
import { chatbotRuntime } from './chatbot/runtime.ts';
import { conditionRuntime } from './condition/runtime.ts';
import type { BlockRuntimeModule } from './core/define.ts';
import { dateRangeRuntime } from './date_range/runtime.ts';
import { destinationRuntime } from './destination/runtime.ts';
import { fxRuntime } from './fx/runtime.ts';
import { hangupRuntime } from './hangup/runtime.ts';
import { httpRequestRuntime } from './http_request/runtime.ts';
import { playMessageRuntime } from './play_message/runtime.ts';
import { recordingRuntime } from './recording/runtime.ts';
import type { BlockType } from './registry.ts';
import { sendDtmfRuntime } from './send_dtmf/runtime.ts';
import { sendMessageRuntime } from './send_message/runtime.ts';
import { speechDetectionRuntime } from './speech_detection/runtime.ts';
import { startRuntime } from './start/runtime.ts';
import { variableRuntime } from './variable/runtime.ts';
import { voiceChatSwitchRuntime } from './voice_chat_switch/runtime.ts';
import { voiceMenuRuntime } from './voice_menu/runtime.ts';
import { whatsappTemplateRuntime } from './whatsapp_template/runtime.ts';

export const blockRuntimes: Readonly<Record<BlockType, BlockRuntimeModule>> = {
  start: startRuntime,
  destination: destinationRuntime,
  date_range: dateRangeRuntime,
  play_message: playMessageRuntime,
  variable: variableRuntime,
  send_message: sendMessageRuntime,
  whatsapp_template: whatsappTemplateRuntime,
  api_switch: apiSwitchRuntime,
  send_dtmf: sendDtmfRuntime,
  condition: conditionRuntime,
  voice_menu: voiceMenuRuntime,
  speech_detection: speechDetectionRuntime,
  http_request: httpRequestRuntime,
  chatbot: chatbotRuntime,
  recording: recordingRuntime,
  fx: fxRuntime,
  call_plan: callPlanRuntime,
  hangup: hangupRuntime,
  voice_chat_switch: voiceChatSwitchRuntime,
};
