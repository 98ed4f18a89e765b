import { compileTemplate, type ChatbotProvider, type Outcome, type RuntimeNode, type Template, type Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { chatbotBlock } from './definition.ts';

/** Same wait as a speech gather elsewhere; two silences in a row end the conversation as `done`. */
const speechTimeoutS = 5;
const maxSilences = 2;
/** Messages of history sent with each turn: enough context, a bounded session. */
const maxHistory = 20;

interface Chatbot {
  provider: ChatbotProvider;
  assistantId: string;
  agentId: string;
  initialText: Template;
  instructions: Template;
  maxTurns: number;
  /** '' for the plan's. */
  language: string;
}

interface ChatbotState {
  turns: number;
  silences: number;
  history: Array<{ role: 'user' | 'assistant'; text: string }>;
}

function speak(turn: Turn, bot: Chatbot, text: string): void {
  if (text.trim() === '') return;
  turn.emit(turn.session.channel === 'voice' ? { type: 'say', text, ...(bot.language ? { language: bot.language } : {}) } : { type: 'reply', text });
}

function listen(turn: Turn, bot: Chatbot): Outcome {
  if (turn.session.channel === 'voice') turn.emit({ type: 'gather', input: 'speech', timeout_s: speechTimeoutS, ...(bot.language ? { language: bot.language } : {}) });
  return { wait: true };
}

async function converse(turn: Turn, node: RuntimeNode<Chatbot>, state: ChatbotState, input: string): Promise<Outcome> {
  turn.recordInput(input);
  const bot = node.config;
  let result;
  try {
    result = await turn.ports.ai.chat({
      tenantId: turn.session.tenant_id,
      sessionId: turn.session.id,
      provider: bot.provider,
      assistantId: bot.assistantId,
      agentId: bot.agentId,
      instructions: turn.render(bot.instructions),
      history: state.history,
      input,
      channel: turn.session.channel,
    });
  } catch {
    return { exit: 'error' };
  }
  if (!result.ok) return { exit: 'error' };
  speak(turn, bot, result.reply);
  if (result.outcome === 'done' || result.outcome === 'transfer') return { exit: result.outcome };
  const turns = state.turns + 1;
  if (turns >= bot.maxTurns) return { exit: 'done' };
  const history = [...state.history, { role: 'user' as const, text: input }, { role: 'assistant' as const, text: result.reply }].slice(-maxHistory);
  turn.setState({ turns, silences: 0, history } satisfies ChatbotState);
  return listen(turn, bot);
}

export const chatbotRuntime = defineRuntime(chatbotBlock, {
  compile: (data): Chatbot => ({
    provider: data.provider,
    assistantId: data.assistant_id,
    agentId: data.agent_id,
    initialText: compileTemplate(data.initial_text),
    instructions: compileTemplate(data.additional_instructions),
    maxTurns: data.max_turns,
    language: data.language,
  }),
  enter(turn, node) {
    const initial = turn.render(node.config.initialText);
    speak(turn, node.config, initial);
    const history = initial.trim() === '' ? [] : [{ role: 'assistant' as const, text: initial }];
    turn.setState({ turns: 0, silences: 0, history } satisfies ChatbotState);
    return listen(turn, node.config);
  },
  resume(turn, node, event) {
    const state = (turn.state as ChatbotState | null) ?? { turns: 0, silences: 0, history: [] };
    const channel = turn.session.channel;
    if ((channel === 'voice' && event.type === 'speech') || (channel === 'chat' && event.type === 'message')) {
      if (event.text.trim() !== '') return converse(turn, node, state, event.text);
    } else if (!(channel === 'voice' && event.type === 'timeout')) {
      return undefined;
    }
    const silences = state.silences + 1;
    if (silences >= maxSilences) return { exit: 'done' };
    turn.setState({ ...state, silences } satisfies ChatbotState);
    return listen(turn, node.config);
  },
});
