/**
 * A plan version as the engine runs it: validated once, each node's data parsed and precompiled
 * (templates, expressions, paths, patterns), exits resolved to their targets. A published version
 * never changes, so the host compiles it once and keeps it (the `PlanLoader` port).
 */
import { type CompiledPlan, compileTemplate, type RuntimeNode } from '@voxplan/engine';
import type { BlockRuntimeModule } from './core/define.ts';
import { goalOfData } from './plan/goal.ts';
import { readPlanDocument } from './plan/validate.ts';
import { blockDefinition, isBlockType } from './registry.ts';
import { blockRuntimes } from './runtime-registry.ts';

const goalOf = (data: unknown): { goal?: string } => {
  const goal = goalOfData(data);
  return goal === undefined ? {} : { goal };
};

export interface PlanIdentity {
  id: number;
  tenant_id: number;
  name: string;
  version: number;
}

/**
 * Throws `PlanValidationError` when the document is not valid. `identity` supplies what the
 * server keeps in its own columns; the document's own fields are used where it is left out.
 */
export function compilePlan(raw: unknown, identity: Partial<PlanIdentity> = {}): CompiledPlan {
  const document = readPlanDocument(raw, identity.id === undefined ? {} : { planId: identity.id });
  const id = identity.id ?? document.id;
  const tenantId = identity.tenant_id ?? document.tenant_id;
  const version = identity.version ?? document.version;
  if (id === undefined || tenantId === undefined || version === undefined) throw new TypeError('compilePlan needs the plan id, tenant_id and version');

  const targets = new Map<string, Map<string, string>>();
  for (const edge of document.edges) {
    let exits = targets.get(edge.source);
    if (!exits) targets.set(edge.source, (exits = new Map()));
    exits.set(edge.source_exit, edge.target);
  }
  const nodes = new Map<string, RuntimeNode>();
  let startId = '';
  let hangupChatMessage = '';
  for (const node of document.nodes) {
    if (!isBlockType(node.type)) continue;
    const module: BlockRuntimeModule = blockRuntimes[node.type];
    const errorExit = blockDefinition(node.type)?.errorExit;
    nodes.set(node.id, {
      id: node.id,
      type: node.type,
      ...(node.label !== undefined && { label: node.label }),
      ...goalOf(node.data),
      config: module.compile(node.data),
      runtime: module.runtime,
      targets: targets.get(node.id) ?? new Map(),
      ...(errorExit !== undefined && { errorExit }),
    });
    if (node.type === 'start') {
      startId = node.id;
      hangupChatMessage = (node.data as { hangup_chat_message: string }).hangup_chat_message;
    }
  }
  return {
    id,
    tenant_id: tenantId,
    name: identity.name ?? document.name ?? '',
    version,
    settings: {
      session_timeout_min: document.settings.session_timeout_min,
      sync_with_voice_text: document.settings.sync_with_voice_text,
      webhook: document.settings.webhook,
      language: document.settings.language,
      twilio_voice: document.settings.twilio_voice,
      tts_voice: document.settings.tts_voice,
    },
    startNodeId: startId,
    hangupChatMessage: compileTemplate(hangupChatMessage),
    chatTimeoutText: compileTemplate(document.settings.chat_text),
    nodes,
  };
}
