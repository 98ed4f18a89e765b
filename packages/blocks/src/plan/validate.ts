/**
 * Structural validation of a plan document: the checks that need nothing but the document.
 * Whether referenced destinations, audios, date ranges and plans exist in the tenant is the
 * server's question (`planReferences` lists them).
 */
import type { z } from 'zod';
import { blockDefinition } from '../registry.ts';
import { type PlanNode, PlanFormatError, migratePlanDocument, planDocumentSchema, type ValidatedDocument } from './document.ts';
import type { PlanErrorCode, PlanIssue, PlanWarningCode } from './issues.ts';
import { lintPlan } from './lint.ts';

export type { ValidatedDocument };

export type PlanValidation =
  | { ok: true; document: ValidatedDocument; errors: []; warnings: Array<PlanIssue<PlanWarningCode>> }
  | { ok: false; errors: Array<PlanIssue<PlanErrorCode>>; warnings: Array<PlanIssue<PlanWarningCode>> };

export interface ValidateOptions {
  /** The plan's own id, when it has one: a `call_plan` to it is refused. */
  planId?: number;
}

const joinPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

function issueCode(issue: z.core.$ZodIssue): PlanErrorCode {
  if (issue.code === 'custom' && typeof issue.params?.code === 'string') return issue.params.code as PlanErrorCode;
  return 'invalid_field';
}

export function validatePlanDocument(raw: unknown, options: ValidateOptions = {}): PlanValidation {
  const errors: Array<PlanIssue<PlanErrorCode>> = [];
  let migrated: unknown;
  try {
    migrated = migratePlanDocument(raw);
  } catch (error) {
    if (!(error instanceof PlanFormatError)) throw error;
    return { ok: false, errors: [{ code: 'unsupported_format', message: error.message, path: 'format_version' }], warnings: [] };
  }
  const parsed = planDocumentSchema.safeParse(migrated);
  if (!parsed.success) {
    const rawNodes = (migrated as { nodes?: unknown }).nodes;
    for (const issue of parsed.error.issues) {
      const [first, index, ...rest] = issue.path;
      const rawNode = first === 'nodes' && typeof index === 'number' && Array.isArray(rawNodes) ? (rawNodes[index] as { id?: unknown }) : undefined;
      if (rawNode && typeof rawNode.id === 'string') errors.push({ code: issueCode(issue), message: issue.message, node_id: rawNode.id, path: joinPath(rest) });
      else errors.push({ code: issueCode(issue), message: issue.message, path: joinPath(issue.path) });
    }
    return { ok: false, errors, warnings: [] };
  }
  const content = parsed.data;

  const nodes: PlanNode[] = [];
  const exitsById = new Map<string, readonly string[]>();
  const seen = new Set<string>();
  content.nodes.forEach((node, index) => {
    if (seen.has(node.id)) {
      errors.push({ code: 'duplicate_id', message: `another node has the id '${node.id}'`, path: `nodes.${index}.id` });
      return;
    }
    seen.add(node.id);
    const definition = blockDefinition(node.type);
    if (!definition) {
      errors.push({ code: 'unknown_block_type', message: `'${node.type}' is not a block type`, node_id: node.id, path: 'type' });
      return;
    }
    const data = definition.schema.safeParse(node.data);
    if (!data.success) {
      for (const issue of data.error.issues) errors.push({ code: issueCode(issue), message: issue.message, node_id: node.id, path: joinPath(issue.path) });
      return;
    }
    nodes.push({ ...node, data: data.data });
    exitsById.set(node.id, definition.exits(data.data));
  });

  const starts = content.nodes.filter((node) => node.type === 'start');
  if (starts.length === 0) errors.push({ code: 'missing_start', message: 'a plan needs one start block', path: 'nodes' });
  for (const extra of starts.slice(1)) errors.push({ code: 'multiple_starts', message: 'a plan has exactly one start block', node_id: extra.id, path: 'type' });

  if (options.planId !== undefined) {
    for (const node of nodes) {
      if (node.type === 'call_plan' && (node.data as { plan_id: number }).plan_id === options.planId) {
        errors.push({ code: 'plan_calls_itself', message: 'a plan may not call itself', node_id: node.id, path: 'plan_id' });
      }
    }
  }

  const edgeIds = new Set<string>();
  const connected = new Map<string, string>();
  const allNodeIds = new Set(content.nodes.map((node) => node.id));
  for (const edge of content.edges) {
    if (edgeIds.has(edge.id)) {
      errors.push({ code: 'duplicate_id', message: `another edge has the id '${edge.id}'`, edge_id: edge.id, path: 'id' });
      continue;
    }
    edgeIds.add(edge.id);
    if (!allNodeIds.has(edge.target)) errors.push({ code: 'unknown_node', message: `no node '${edge.target}'`, edge_id: edge.id, path: 'target' });
    if (!allNodeIds.has(edge.source)) {
      errors.push({ code: 'unknown_node', message: `no node '${edge.source}'`, edge_id: edge.id, path: 'source' });
      continue;
    }
    const exits = exitsById.get(edge.source);
    // A source whose data is invalid has no known exits; its own errors say why.
    if (!exits) continue;
    if (!exits.includes(edge.source_exit)) {
      errors.push({ code: 'unknown_exit', message: `block '${edge.source}' has no exit '${edge.source_exit}'`, edge_id: edge.id, path: 'source_exit' });
      continue;
    }
    const key = `${edge.source}\u0000${edge.source_exit}`;
    const other = connected.get(key);
    if (other !== undefined) {
      errors.push({
        code: 'exit_already_connected',
        message: `exit '${edge.source_exit}' of '${edge.source}' already leads to a block (edge '${other}')`,
        edge_id: edge.id,
        path: 'source_exit',
      });
      continue;
    }
    connected.set(key, edge.id);
  }

  if (errors.length > 0) return { ok: false, errors, warnings: [] };
  const validated: ValidatedDocument = { ...content, nodes };
  return { ok: true, document: validated, errors: [], warnings: lintPlan(validated) };
}

export class PlanValidationError extends Error {
  constructor(readonly errors: ReadonlyArray<PlanIssue<PlanErrorCode>>) {
    super(`the plan is invalid: ${errors.map((error) => `${error.node_id ?? error.edge_id ?? ''}${error.path ? `.${error.path}` : ''} ${error.message}`).join('; ')}`);
    this.name = 'PlanValidationError';
  }
}

/** Migrates and validates a stored document; throws `PlanValidationError` when it is not valid. */
export function readPlanDocument(raw: unknown, options: ValidateOptions = {}): ValidatedDocument {
  const result = validatePlanDocument(raw, options);
  if (!result.ok) throw new PlanValidationError(result.errors);
  return result.document;
}
