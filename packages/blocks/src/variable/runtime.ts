import { defineRuntime } from '../core/define.ts';
import { compileValue } from '../core/value.ts';
import { variableBlock } from './definition.ts';

export const variableRuntime = defineRuntime(variableBlock, {
  compile: (data) => data.assignments.map((assignment) => ({ name: assignment.name, value: compileValue(assignment.value) })),
  enter(turn, node) {
    for (const assignment of node.config) turn.setVariable(assignment.name, assignment.value(turn));
    return { exit: 'next' };
  },
});
