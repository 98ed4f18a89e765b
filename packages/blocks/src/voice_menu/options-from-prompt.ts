/**
 * A menu's options as its prompt says them ("Press 1 for sales, 2 for support"; "Tecle 1 para
 * vendas ou 2 para suporte"; "For billing, press 3"), so that a person who wrote the prompt does
 * not type the same options again (issue 31). Pure text work: the form decides when to use it.
 */

export interface PromptOption {
  digits: string;
  label: string;
}

// What a person says to ask for a key, in English and Portuguese.
const VERB = String.raw`(?:press|push|dial|enter|type|choose|select|tecle|digite|pressione|disque|aperte|escolha|marque)`;
const KEY = String.raw`([0-9*#]{1,20})(?![0-9*#])`;
// "1 for sales", "0 to speak to an operator", "1 para vendas", "1 pra vendas".
const LINK = String.raw`(?:for|to|para|pra)`;
const AND = String.raw`(?:or|and|ou|e)`;
// A label runs to the end of its clause, or to where the next option starts ("… sales 2 for support").
const LABEL = String.raw`([^,;.!?:\n]+?)`;
const LABEL_END = String.raw`(?=\s*(?:[,;.!?:\n]|$)|\s+(?:${AND}\s+)?(?:${VERB}\s+)?[0-9*#]{1,20}\s+${LINK}\s)`;

/** "Press 1 for sales": the first option of a run, where a verb asks for a key. */
const opening = new RegExp(String.raw`(?<![\p{L}\p{N}])${VERB}\s+${KEY}\s+${LINK}\s+${LABEL}${LABEL_END}`, 'giu');
/** ", 2 for support", " or 2 for support", ", press 2 for support": the options after it. */
const following = new RegExp(String.raw`(?:\s*[,;]\s*|\s+)(?:${AND}\s+)?(?:${VERB}\s+)?${KEY}\s+${LINK}\s+${LABEL}${LABEL_END}`, 'yiu');
/** "For sales, press 1": the label first. Its label holds no "for"/"to" (in "Welcome to Acme for sales, press 1" it is "sales"). */
const labelFirst = new RegExp(String.raw`(?<![\p{L}\p{N}])${LINK}\s+((?:(?!(?<![\p{L}\p{N}])${LINK}\s)[^,;.!?:\n])+?),?\s+${VERB}\s+${KEY}`, 'giu');

// Articles a person would not write in a label ("for the sales team" is "Sales team").
const ARTICLE = /^(?:the|an?|o|os|as|a)(?:\s+|$)/iu;

/** The label as a person would type it: no article, no trailing "please", capitalised. */
function labelOf(text: string): string {
  const label = text
    .trim()
    .replace(ARTICLE, '')
    .replace(/\s+(?:please|por favor)$/iu, '')
    .trim()
    .slice(0, 100);
  return label.charAt(0).toLocaleUpperCase() + label.slice(1);
}

interface Found extends PromptOption {
  start: number;
  end: number;
}

/**
 * The options the prompt names, in the order it names them; a key named twice keeps its first
 * label. Empty when the prompt names none (a welcome, "Enter your 6-digit account number").
 */
export function optionsFromPrompt(prompt: string): PromptOption[] {
  const found: Found[] = [];
  const add = (start: number, end: number, digits: string | undefined, label: string | undefined) => {
    const text = labelOf(label ?? '');
    if (digits !== undefined && text !== '') found.push({ digits, label: text, start, end });
  };
  opening.lastIndex = 0;
  for (let match = opening.exec(prompt); match !== null; match = opening.exec(prompt)) {
    add(match.index, opening.lastIndex, match[1], match[2]);
    following.lastIndex = opening.lastIndex;
    for (let next = following.exec(prompt); next !== null; next = following.exec(prompt)) {
      add(next.index, following.lastIndex, next[1], next[2]);
      opening.lastIndex = following.lastIndex;
    }
  }
  labelFirst.lastIndex = 0;
  for (let match = labelFirst.exec(prompt); match !== null; match = labelFirst.exec(prompt)) {
    const [start, end] = [match.index, labelFirst.lastIndex];
    // Text a "Press 1 for …" option already took is not read again the other way round.
    if (!found.some((option) => start < option.end && option.start < end)) add(start, end, match[2], match[1]);
  }
  const options: PromptOption[] = [];
  for (const option of found.sort((a, b) => a.start - b.start)) {
    if (!options.some((taken) => taken.digits === option.digits)) options.push({ digits: option.digits, label: option.label });
  }
  return options;
}

/** Whether two option lists say the same keys and labels, in the same order. */
export function sameOptions(a: readonly PromptOption[], b: readonly PromptOption[]): boolean {
  return a.length === b.length && a.every((option, index) => option.digits === b[index]!.digits && option.label === b[index]!.label);
}
