/** Sending a WhatsApp template from a block, through the engine's Templates port. */
import { compileTemplate, type Template, type TemplateRef, type TemplateResult, type Turn, unconfiguredTemplates } from '@voxplan/engine';

type TextType = 'currency' | 'date_time';

export interface CompiledTemplateChoice {
  template: TemplateRef;
  parameters: ReadonlyArray<{ key: string; value: Template }>;
  types: Readonly<Record<string, TextType>>;
}

export function compileTemplateChoice(name: string, language: string, parameters: ReadonlyArray<{ key: string; value: string; type?: TextType | undefined }>): CompiledTemplateChoice {
  const types: Record<string, TextType> = {};
  for (const parameter of parameters) if (parameter.type) types[parameter.key] = parameter.type;
  return { template: { name, language }, parameters: parameters.map((parameter) => ({ key: parameter.key, value: compileTemplate(parameter.value) })), types };
}

export function renderValues(turn: Turn, choice: CompiledTemplateChoice): Record<string, string> {
  const values: Record<string, string> = {};
  for (const parameter of choice.parameters) values[parameter.key] = turn.render(parameter.value);
  return values;
}

/**
 * The port's answer; a port that throws counts as a refusal (`error`), never as a message sent.
 * To the session's customer, the turn's replies so far go first (Turn.takeReplies), in order.
 */
export async function sendTemplate(turn: Turn, choice: CompiledTemplateChoice, to: string): Promise<TemplateResult> {
  const templates = turn.ports.templates ?? unconfiguredTemplates;
  if (choice.template.name === '') return { ok: false, reason: 'template_not_found' };
  const before = to === turn.session.caller && turn.session.provider === 'whatsapp' ? turn.takeReplies() : [];
  try {
    return await templates.send({
      tenantId: turn.session.tenant_id,
      sessionId: turn.session.id,
      from: turn.session.called,
      to,
      template: choice.template,
      values: renderValues(turn, choice),
      ...(Object.keys(choice.types).length > 0 && { types: choice.types }),
      ...(before.length > 0 && { before }),
      at: turn.now,
    });
  } catch {
    return { ok: false, reason: 'error' };
  }
}

/** The template's plain text, for a channel that cannot send templates. */
export async function templatePlainText(turn: Turn, choice: CompiledTemplateChoice): Promise<TemplateResult> {
  const templates = turn.ports.templates ?? unconfiguredTemplates;
  if (choice.template.name === '') return { ok: false, reason: 'template_not_found' };
  try {
    return await templates.plainText({
      tenantId: turn.session.tenant_id,
      sessionId: turn.session.id,
      from: turn.session.called,
      template: choice.template,
      values: renderValues(turn, choice),
    });
  } catch {
    return { ok: false, reason: 'error' };
  }
}
