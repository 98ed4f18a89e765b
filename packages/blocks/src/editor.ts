/**
 * Console only: what the plan editor needs of the blocks (icons, colours, summaries, forms), on
 * top of `./definitions`. No block runtime and no Node module is loaded from here.
 */
export { blockEditor, blockEditors } from './editor-registry.ts';
export { BlockForm, GenericBlockForm } from './core/editor/BlockForm.tsx';
export { describeFields, defaultValueOf, emptyRequiredFields, formFieldsOf, initialDataOf, joinPath, newBlockData, validateData, type EmptyRequiredField, type FieldDescriptor, type FieldKind } from './core/editor/form-model.ts';
export { editorTexts, formatText, type EditorTexts } from './core/editor/texts.ts';
export type { BlockEditor, BlockFormProps, EditorLanguage, EditorServices, FieldHint, PickerOption, SummaryContext, WhatsAppTemplateChoice } from './core/editor/types.ts';
