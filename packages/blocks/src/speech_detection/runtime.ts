import { compileTemplate, type Outcome, type RuntimeNode, type Template, type Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { type CompiledPrompt, chatPromptText, compilePrompt, playPrompt } from '../core/prompt.ts';
import { speechDetectionBlock } from './definition.ts';

/** blocks.md gives speech detection no timeout field; five seconds of silence is a gather's usual wait. */
const speechTimeoutS = 5;

interface Detection {
  prompt: CompiledPrompt;
  variables: Array<{ name: string; description: string }>;
  maxRetries: number;
  retryText: Template;
  transcriptionPrompt: string;
}

async function ask(turn: Turn, detection: Detection, isRetry: boolean): Promise<Outcome> {
  const retryText = isRetry ? turn.render(detection.retryText).trim() : '';
  if (turn.session.channel === 'voice') {
    const language = turn.speechLanguage(detection.prompt.language);
    if (retryText !== '') turn.emit({ type: 'say', text: retryText, language });
    // On a retry with its own text, the retry text stands in for the prompt.
    if (retryText === '') await playPrompt(turn, detection.prompt);
    const gather = { type: 'gather' as const, input: 'speech' as const, timeout_s: speechTimeoutS, language };
    turn.emit(detection.transcriptionPrompt ? { ...gather, hints: detection.transcriptionPrompt } : gather);
  } else {
    const text = retryText !== '' ? retryText : chatPromptText(turn, detection.prompt);
    if (text.trim() !== '') turn.emit({ type: 'reply', text });
  }
  return { wait: true };
}

function retry(turn: Turn, node: RuntimeNode<Detection>): Promise<Outcome> | Outcome {
  const failures = ((turn.state as { failures: number } | null)?.failures ?? 0) + 1;
  if (failures > node.config.maxRetries) return { exit: 'failed' };
  turn.setState({ failures });
  return ask(turn, node.config, true);
}

async function understand(turn: Turn, node: RuntimeNode<Detection>, transcript: string): Promise<Outcome> {
  turn.recordInput(transcript);
  if (transcript.trim() === '') return retry(turn, node);
  const { variables, transcriptionPrompt } = node.config;
  const language = turn.speechLanguage(node.config.prompt.language);
  let result;
  try {
    result = await turn.ports.ai.extract({ tenantId: turn.session.tenant_id, sessionId: turn.session.id, transcript, variables, prompt: transcriptionPrompt, language });
  } catch {
    return { exit: 'failed' };
  }
  // No key, a refused key, an unreachable provider: asking again would not help.
  if (!result.ok) return { exit: 'failed' };
  let isComplete = true;
  for (const variable of variables) {
    const value = Object.hasOwn(result.values, variable.name) ? result.values[variable.name] : undefined;
    if (typeof value === 'string' && value.trim() !== '') turn.setVariable(variable.name, value);
    else isComplete = false;
  }
  return isComplete ? { exit: 'success' } : retry(turn, node);
}

export const speechDetectionRuntime = defineRuntime(speechDetectionBlock, {
  compile: (data): Detection => ({
    prompt: compilePrompt(data),
    variables: data.variables,
    maxRetries: data.max_retries,
    retryText: compileTemplate(data.retry_text),
    transcriptionPrompt: data.transcription_prompt,
  }),
  enter: (turn, node) => ask(turn, node.config, false),
  resume(turn, node, event) {
    const channel = turn.session.channel;
    if (channel === 'voice' && event.type === 'speech') return understand(turn, node, event.text);
    if (channel === 'voice' && event.type === 'timeout') return retry(turn, node);
    if (channel === 'chat' && event.type === 'message') return understand(turn, node, event.text);
    return undefined;
  },
});
