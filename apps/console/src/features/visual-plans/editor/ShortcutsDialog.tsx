import { Group, Kbd, Modal, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The keys the editor answers, as the help dialog lists them. */
const shortcuts: { keys: string[]; labelKey: string }[] = [
  { keys: ['Ctrl', 'S'], labelKey: 'editor.keys.save' },
  { keys: ['Ctrl', 'Z'], labelKey: 'editor.keys.undo' },
  { keys: ['Ctrl', 'Shift', 'Z'], labelKey: 'editor.keys.redo' },
  { keys: ['Ctrl', 'C'], labelKey: 'editor.keys.copy' },
  { keys: ['Ctrl', 'X'], labelKey: 'editor.keys.cut' },
  { keys: ['Ctrl', 'V'], labelKey: 'editor.keys.paste' },
  { keys: ['Ctrl', 'D'], labelKey: 'editor.keys.duplicate' },
  { keys: ['Ctrl', 'A'], labelKey: 'editor.keys.selectAll' },
  { keys: ['Delete'], labelKey: 'editor.keys.delete' },
  { keys: ['Shift', 'Click'], labelKey: 'editor.keys.multiSelect' },
  { keys: ['Shift', 'Drag'], labelKey: 'editor.keys.boxSelect' },
  { keys: ['Ctrl', 'F'], labelKey: 'editor.keys.find' },
  { keys: ['?'], labelKey: 'editor.keys.help' },
];

/** The keyboard shortcuts, listed; loaded when first asked for, off the editor's route. */
export function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const { t } = useTranslation();
  return (
    <Modal opened onClose={onClose} title={t('editor.keys.title')} data-testid="shortcuts-dialog">
      <Table>
        <Table.Tbody>
          {shortcuts.map((shortcut) => (
            <Table.Tr key={shortcut.labelKey}>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {shortcut.keys.map((key) => (
                    <Kbd key={key}>{key}</Kbd>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>{t(shortcut.labelKey)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}
