import { ActionIcon, Button, Group, Menu, Tooltip } from '@mantine/core';
import { useDisclosure, useHotkeys } from '@mantine/hooks';
import {
  IconArrowBackUp,
  IconArrowForwardUp,
  IconClipboard,
  IconCopy,
  IconDeviceFloppy,
  IconDots,
  IconFocusCentered,
  IconHistory,
  IconKeyboard,
  IconLayoutDistributeHorizontal,
  IconRocket,
  IconSearch,
  IconSquaresDiagonal,
  IconTrash,
} from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { loadRolloutTexts } from '../../../i18n/index.ts';
import type { Graph } from './graph-state.ts';
import type { PlanSaving } from './use-plan-saving.tsx';

// Loaded when first opened, so the editor's route carries only the canvas and its forms.
const FindBlockDialog = lazy(() => import('./FindBlockDialog.tsx').then((module) => ({ default: module.FindBlockDialog })));
// The drawer shows what is live, a staged rollout included: it waits for the rollouts' texts too.
const VersionsDrawer = lazy(() => Promise.all([import('./VersionsDrawer.tsx'), loadRolloutTexts()]).then(([module]) => ({ default: module.VersionsDrawer })));
const ShortcutsDialog = lazy(() => import('./ShortcutsDialog.tsx').then((module) => ({ default: module.ShortcutsDialog })));

export interface EditorToolbarProps {
  readOnly: boolean;
  canUndo: boolean;
  canRedo: boolean;
  hasSelection: boolean;
  dirty: boolean;
  graph: Graph;
  saving: PlanSaving;
  onUndo(): void;
  onRedo(): void;
  onCopy(): void;
  onPaste(): void;
  onDuplicate(): void;
  onRemove(): void;
  onAutoLayout(): void;
  onFitView(): void;
  /** Asks before publishing (PublishDialog). */
  onPublish(): void;
  onFocusNode(nodeId: string): void;
}

function ToolButton({ label, onClick, disabled, testId, children }: { label: string; onClick(): void; disabled?: boolean; testId: string; children: React.ReactNode }) {
  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" aria-label={label} onClick={onClick} disabled={disabled} data-testid={testId}>
        {children}
      </ActionIcon>
    </Tooltip>
  );
}

export function EditorToolbar(props: EditorToolbarProps) {
  const { t } = useTranslation();
  const [findOpened, find] = useDisclosure(false);
  const [helpOpened, help] = useDisclosure(false);
  const [versionsOpened, versions] = useDisclosure(false);
  useHotkeys([
    ['mod+f', () => find.open()],
    ['shift+?', () => help.open()],
  ]);
  const { readOnly, saving } = props;

  return (
    <Group gap={6} wrap="nowrap">
      {!readOnly && (
        <>
          <ToolButton label={t('editor.undo')} onClick={props.onUndo} disabled={!props.canUndo} testId="editor-undo">
            <IconArrowBackUp size={18} />
          </ToolButton>
          <ToolButton label={t('editor.redo')} onClick={props.onRedo} disabled={!props.canRedo} testId="editor-redo">
            <IconArrowForwardUp size={18} />
          </ToolButton>
        </>
      )}
      <ToolButton label={t('editor.find')} onClick={find.open} testId="editor-find">
        <IconSearch size={18} />
      </ToolButton>
      <ToolButton label={t('editor.fitView')} onClick={props.onFitView} testId="editor-fit">
        <IconFocusCentered size={18} />
      </ToolButton>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="default" size="lg" aria-label={t('editor.more')} data-testid="editor-more">
            <IconDots size={18} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item leftSection={<IconCopy size={16} />} onClick={props.onCopy} disabled={!props.hasSelection} data-testid="editor-copy">
            {t('editor.copy')}
          </Menu.Item>
          {!readOnly && (
            <>
              <Menu.Item leftSection={<IconClipboard size={16} />} onClick={props.onPaste} data-testid="editor-paste">
                {t('editor.paste')}
              </Menu.Item>
              <Menu.Item leftSection={<IconSquaresDiagonal size={16} />} onClick={props.onDuplicate} disabled={!props.hasSelection} data-testid="editor-duplicate">
                {t('editor.duplicate')}
              </Menu.Item>
              <Menu.Item leftSection={<IconTrash size={16} />} color="red" onClick={props.onRemove} disabled={!props.hasSelection} data-testid="editor-delete">
                {t('editor.delete')}
              </Menu.Item>
              <Menu.Divider />
              <Menu.Item leftSection={<IconLayoutDistributeHorizontal size={16} />} onClick={props.onAutoLayout} data-testid="editor-layout">
                {t('editor.autoLayout')}
              </Menu.Item>
            </>
          )}
          <Menu.Item leftSection={<IconHistory size={16} />} onClick={versions.open} data-testid="editor-versions">
            {t('editor.versions.title')}
          </Menu.Item>
          <Menu.Item leftSection={<IconKeyboard size={16} />} onClick={help.open} data-testid="editor-shortcuts">
            {t('editor.keys.title')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {!readOnly && (
        <>
          <Button leftSection={<IconDeviceFloppy size={16} />} variant={props.dirty ? 'light' : 'default'} onClick={() => void saving.save()} loading={saving.saving} data-testid="editor-save">
            {t('common.save')}
          </Button>
          <Button leftSection={<IconRocket size={16} />} onClick={props.onPublish} loading={saving.publishing} data-testid="editor-publish">
            {t('editor.publish')}
          </Button>
        </>
      )}
      <Suspense>
        {findOpened && <FindBlockDialog opened onClose={find.close} graph={props.graph} onFocusNode={props.onFocusNode} />}
        {versionsOpened && <VersionsDrawer opened onClose={versions.close} saving={saving} dirty={props.dirty} />}
        {helpOpened && <ShortcutsDialog onClose={help.close} />}
      </Suspense>
    </Group>
  );
}
