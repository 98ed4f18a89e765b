/** Server only: block runtimes and the plan compiler. Import definitions from `./definitions`. */
export { type BlockRuntimeModule } from './core/define.ts';
export { blockRuntimes } from './runtime-registry.ts';
export { compilePlan, type PlanIdentity } from './compile.ts';
