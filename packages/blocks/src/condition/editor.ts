import { IconGitBranch } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, excerpt, listed, readList, readText } from '../core/editor/summary.ts';
import { editorTexts } from '../core/editor/texts.ts';
import { conditionDescription } from './description.ts';

export const conditionEditor = defineEditor({
  description: conditionDescription,
  icon: IconGitBranch,
  color: 'yellow',
  // "{{caller}} starts with 55", the rules joined by "and" or "or" as the block matches them.
  summary: (data, context) => {
    const rules = readList(data, 'rules').map((rule) => {
      const op = readText(rule, 'op');
      const unary = op === 'empty' || op === 'not_empty';
      return excerpt([readText(rule, 'left'), choiceLabel(conditionDescription, context, op), unary ? '' : readText(rule, 'right')].join(' '), 50);
    });
    const joiner = ` ${editorTexts[context.language].summary[readText(data, 'match') === 'any' ? 'any' : 'all']}\n`;
    return rules.length <= 2 ? rules.join(joiner) : `${rules[0]}${joiner}${listed(rules.slice(1), context, 1)}`;
  },
});
