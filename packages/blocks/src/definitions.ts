/**
 * Everything about blocks that is safe everywhere (server, console, tests): schemas, exits,
 * references, texts, the plan document and its validation. No block runtime is imported here.
 */
export { type BlockDefinition, type BlockTexts, type ReferenceField, type ReferenceKind, type SettingGate } from './core/define.ts';
export { httpMethods } from './core/http-fields.ts';
export { conditionOperators, type ConditionOperator } from './condition/definition.ts';
export { blockDefinition, blockDefinitions, blockTypes, exitsOf, isBlockType, type BlockData, type BlockType } from './registry.ts';
export * from './plan/document.ts';
export { dataWithGoal, dataWithoutGoal, goalNameLength, goalOfData } from './plan/goal.ts';
export * from './plan/issues.ts';
export { callPlanCycles, lintPlan, settingsOff } from './plan/lint.ts';
export { templateWarnings, type SyncedTemplate } from './plan/template-warnings.ts';
export * from './plan/references.ts';
export * from './plan/validate.ts';
