/**
 * A text input (or area) that offers the plan's variables after `{{`: typing `{{cal` lists
 * `caller` and `called`; choosing one writes `{{caller}}` and puts the caret after it. The system's
 * variables come first, each with what it holds, so that a person finds `answered_by` without
 * reading the docs; the plan's own follow.
 */
import { Combobox, Text, Textarea, TextInput, useCombobox } from '@mantine/core';
import { type ChangeEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { useFormContext } from './form-context.ts';
import { growingTextarea, monospaceFont } from './growing-textarea.ts';

/** The placeholder being typed right before the caret: `{{` and the start of a name. */
const openPlaceholder = /\{\{\s*(\w*)$/;

/** Most names shown at once; typing more letters narrows the list. */
const maxSuggestions = 30;

export interface TemplateInputProps {
  value: string;
  onChange(value: string): void;
  label: string;
  /** Shown while the field is empty, in place of the hint that `{{` inserts a variable. */
  placeholder?: string;
  error?: ReactNode;
  multiline?: boolean;
  monospace?: boolean;
  maxLength?: number;
  testId: string;
}

export function TemplateInput({ value, onChange, label, placeholder, error, multiline, monospace, maxLength, testId }: TemplateInputProps) {
  const { services, texts, readOnly } = useFormContext();
  const combobox = useCombobox();
  const element = useRef<HTMLInputElement | HTMLTextAreaElement | null>(null);
  const [typed, setTyped] = useState<string | null>(null);
  const suggestions =
    typed === null ? [] : services.variableNames.filter((name) => name.toLowerCase().startsWith(typed.toLowerCase())).slice(0, maxSuggestions);
  // A name the texts describe is one the system fills; the plan cannot assign those.
  const described = (name: string): string | undefined => (Object.hasOwn(texts.variables, name) ? texts.variables[name as keyof typeof texts.variables] : undefined);
  const system = suggestions.filter((name) => described(name) !== undefined);
  const own = suggestions.filter((name) => described(name) === undefined);

  const handleChange = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    const text = event.currentTarget.value;
    const match = openPlaceholder.exec(text.slice(0, event.currentTarget.selectionStart ?? text.length));
    onChange(text);
    setTyped(match ? match[1]! : null);
    if (match) combobox.openDropdown();
    else combobox.closeDropdown();
  };

  // Enter takes the first name offered, once the options for what was typed are drawn.
  useEffect(() => {
    if (typed !== null) combobox.selectFirstOption();
    // Only when what was typed changes: the store is a new object on every render, and an option
    // the user moved to with the arrow keys must stay chosen.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [typed]);

  const insert = (name: string) => {
    const caret = element.current?.selectionStart ?? value.length;
    const before = value.slice(0, caret).replace(openPlaceholder, `{{${name}}}`);
    // The rest of a name already written after the caret (`{{ca|ller}}`) is replaced, not kept.
    const after = value.slice(caret).replace(/^\w*\s*\}\}/, '');
    onChange(before + after);
    setTyped(null);
    combobox.closeDropdown();
    requestAnimationFrame(() => element.current?.setSelectionRange(before.length, before.length));
  };

  const common = {
    label,
    error,
    value,
    readOnly,
    maxLength,
    placeholder: readOnly ? undefined : (placeholder ?? texts.template_hint),
    onChange: handleChange,
    onBlur: () => combobox.closeDropdown(),
    spellCheck: !monospace,
    styles: monospace ? { input: monospaceFont } : undefined,
    'data-testid': testId,
  };
  return (
    <Combobox store={combobox} onOptionSubmit={insert} withinPortal>
      <Combobox.Target>
        {multiline ? (
          <Textarea {...common} {...growingTextarea(2, 12, monospace ? monospaceFont : undefined)} ref={(node) => void (element.current = node)} />
        ) : (
          <TextInput {...common} ref={(node) => void (element.current = node)} />
        )}
      </Combobox.Target>
      <Combobox.Dropdown hidden={suggestions.length === 0 || readOnly}>
        <Combobox.Options>
          {system.length > 0 && (
            <Combobox.Group label={texts.variable_groups.system}>
              {system.map((name) => (
                <Combobox.Option value={name} key={name} aria-label={`{{${name}}}`} aria-description={described(name)}>
                  <Text size="sm">{`{{${name}}}`}</Text>
                  <Text size="xs" c="dimmed">
                    {described(name)}
                  </Text>
                </Combobox.Option>
              ))}
            </Combobox.Group>
          )}
          {own.length > 0 && (
            <Combobox.Group label={system.length > 0 ? texts.variable_groups.plan : undefined}>
              {own.map((name) => (
                <Combobox.Option value={name} key={name}>
                  {`{{${name}}}`}
                </Combobox.Option>
              ))}
            </Combobox.Group>
          )}
        </Combobox.Options>
      </Combobox.Dropdown>
    </Combobox>
  );
}
