/** The side panel's form of a block: the block's own, or the generic one drawn from its schema. */
import { Alert, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { blockEditor } from '../../editor-registry.ts';
import { ObjectFields } from './fields.tsx';
import { FormContext, type FormContextValue } from './form-context.ts';
import { formFieldsOf } from './form-model.ts';
import { editorTexts } from './texts.ts';
import type { BlockEditor, BlockFormProps } from './types.ts';

export function GenericBlockForm({ editor, data, onChange, issues, services }: BlockFormProps & { editor: BlockEditor }) {
  const context = useMemo<FormContextValue>(
    () => ({
      services,
      blockTexts: editor.description.texts[services.language],
      texts: editorTexts[services.language],
      issues,
      readOnly: services.readOnly,
      settingGates: editor.description.settingGates,
      filled: editor.derived?.filled(data) ?? [],
    }),
    [editor, services, issues, data],
  );
  const { derived } = editor;
  const change = derived ? (next: Record<string, unknown>) => onChange(derived.apply(next, data)) : onChange;
  const fields = formFieldsOf(editor);
  // Issues about the data as a whole (a key the block does not know) have the empty path.
  const general = issues.get('');
  return (
    <FormContext.Provider value={context}>
      <Stack gap="sm" data-testid={`block-form-${editor.type}`}>
        {general && (
          <Alert color="red" variant="light" role="alert">
            {general}
          </Alert>
        )}
        {fields.length === 0 && (
          <Text size="sm" c="dimmed">
            {context.texts.no_fields}
          </Text>
        )}
        <ObjectFields fields={fields} value={data} path="" inRow={false} onChange={change} />
      </Stack>
    </FormContext.Provider>
  );
}

/** The form of a block of type `type`: its own where it has one, else the generic form. */
export function BlockForm({ type, ...props }: BlockFormProps & { type: string }) {
  const editor = blockEditor(type);
  if (!editor) throw new Error(`no editor for the block type '${type}'`);
  return editor.Form ? <editor.Form {...props} /> : <GenericBlockForm editor={editor} {...props} />;
}
