import { ActionIcon, Button, Group, Modal, Stack, Table, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { savedReplyLimits } from '@voxplan/contracts/saved-reply-text';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/errors.ts';
import { toast } from '../../lib/notify.ts';
import { type SavedReply, useSavedReplies, useSavedReplyActions } from './use-saved-replies.ts';

/** The form of one reply: a new one, or the one being changed. */
function ReplyForm({ editing, onDone }: { editing: SavedReply | null; onDone(): void }) {
  const { t } = useTranslation();
  const { save } = useSavedReplyActions();
  const [name, setName] = useState(editing?.name ?? '');
  const [text, setText] = useState(editing?.text ?? '');
  const [error, setError] = useState<string | null>(null);
  const submit = () => {
    setError(null);
    save.mutate(
      { ...(editing && { id: editing.id }), name: name.trim(), text: text.trim() },
      {
        onSuccess: () => {
          toast('success', t('conversations.savedReplies.saved'));
          setName('');
          setText('');
          onDone();
        },
        onError: (failure) => setError(errorText(failure, t)),
      },
    );
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Stack gap="xs">
        <TextInput label={t('conversations.savedReplies.name')} required maxLength={savedReplyLimits.name} value={name} onChange={(event) => setName(event.currentTarget.value)} data-testid="saved-reply-name" />
        <Textarea
          label={t('conversations.savedReplies.text')}
          description={t('conversations.savedReplies.textHint', { variable: '{{name}}' })}
          required
          autosize
          minRows={2}
          maxRows={6}
          maxLength={savedReplyLimits.text}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          data-testid="saved-reply-text"
        />
        {error && (
          <Text size="sm" c="var(--mantine-color-error)" role="alert" data-testid="saved-reply-error">
            {error}
          </Text>
        )}
        <Group justify="flex-end" gap="xs">
          {editing && (
            <Button variant="default" onClick={onDone}>
              {t('common.cancel')}
            </Button>
          )}
          <Button type="submit" loading={save.isPending} disabled={!name.trim() || !text.trim()} data-testid="saved-reply-save">
            {editing ? t('common.save') : t('conversations.savedReplies.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The tenant's saved replies (issue 36): listed by name, added, changed and removed by its users
 * and the administrators; the agents pick them with `/` in the message box.
 */
export function SavedRepliesDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const replies = useSavedReplies(opened);
  const { remove } = useSavedReplyActions();
  const [editing, setEditing] = useState<SavedReply | null>(null);
  return (
    <Modal opened={opened} onClose={onClose} size="lg" title={t('conversations.savedReplies.title')} closeButtonProps={{ 'aria-label': t('common.close') }}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {t('conversations.savedReplies.intro', { variable: '{{name}}' })}
        </Text>
        {(replies.data ?? []).length > 0 && (
          <Table aria-label={t('conversations.savedReplies.title')} data-testid="saved-replies">
            <Table.Tbody>
              {(replies.data ?? []).map((reply) => (
                <Table.Tr key={reply.id} data-testid="saved-reply-row">
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      /{reply.name}
                    </Text>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {reply.text}
                    </Text>
                  </Table.Td>
                  <Table.Td w={80}>
                    <Group gap={4} wrap="nowrap">
                      <Tooltip label={t('common.edit')}>
                        <ActionIcon variant="subtle" aria-label={`${t('common.edit')}: ${reply.name}`} onClick={() => setEditing(reply)}>
                          <IconPencil size={16} />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label={t('common.remove')}>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`${t('common.remove')}: ${reply.name}`}
                          loading={remove.isPending && remove.variables === reply.id}
                          onClick={() => remove.mutate(reply.id, { onError: (failure) => toast('error', errorText(failure, t)) })}
                        >
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <ReplyForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      </Stack>
    </Modal>
  );
}
