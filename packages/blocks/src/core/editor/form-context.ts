import { createContext, useContext } from 'react';
import type { BlockTexts, SettingGate } from '../define.ts';
import type { EditorTexts } from './texts.ts';
import type { EditorServices } from './types.ts';

/** What every input of one block's form reads: set once by the form, not passed down field by field. */
export interface FormContextValue {
  services: EditorServices;
  blockTexts: BlockTexts;
  texts: EditorTexts;
  issues: ReadonlyMap<string, string>;
  readOnly: boolean;
  /** The block's choices that depend on a system setting. */
  settingGates: readonly SettingGate[];
  /** Paths of the fields filled from others (a menu's options from its prompt), each noted as such. */
  filled: readonly string[];
}

export const FormContext = createContext<FormContextValue | null>(null);

export function useFormContext(): FormContextValue {
  const context = useContext(FormContext);
  if (!context) throw new Error('a block form field is rendered outside its form');
  return context;
}
