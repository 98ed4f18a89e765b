import { Paper, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import classes from './conversations.module.css';
import type { SavedReply } from './use-saved-replies.ts';

/** The `/name` being typed at the start of the message box, or null when the box holds something else. */
export function slashQuery(text: string): string | null {
  const match = /^\/(\S*)$/.exec(text);
  return match ? match[1]!.toLowerCase() : null;
}

/** The replies whose name (or text) holds the query, names first. */
export function matchingReplies(replies: readonly SavedReply[], query: string): SavedReply[] {
  const byName = replies.filter((reply) => reply.name.toLowerCase().includes(query));
  const byText = replies.filter((reply) => !byName.includes(reply) && reply.text.toLowerCase().includes(query));
  return [...byName, ...byText];
}

export const PICKER_ID = 'saved-reply-picker';
export const optionId = (id: number) => `saved-reply-${id}`;

/**
 * The saved replies offered while the agent types `/` in the message box (issue 36): ↑ ↓ choose,
 * Enter or a click takes one, Escape leaves the text as typed. A listbox the box controls
 * (aria-activedescendant), so the focus stays in the box.
 */
export function SavedReplyPicker({ replies, active, onPick, loading }: { replies: SavedReply[]; active: number; onPick(reply: SavedReply): void; loading: boolean }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder shadow="sm" p={4} mb="xs" className={classes.picker} data-testid="saved-reply-picker">
      <div role="listbox" id={PICKER_ID} aria-label={t('conversations.savedReplies.title')}>
        {replies.map((reply, index) => (
          <UnstyledButton
            key={reply.id}
            id={optionId(reply.id)}
            role="option"
            aria-selected={index === active}
            data-active={index === active || undefined}
            className={classes.pickerOption}
            tabIndex={-1}
            // The box keeps the focus: the click picks without taking it away.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onPick(reply)}
            data-testid="saved-reply-option"
          >
            <Text size="sm" fw={600} component="div">
              {reply.name}
            </Text>
            <Text size="xs" c="dimmed" lineClamp={1} component="div">
              {reply.text}
            </Text>
          </UnstyledButton>
        ))}
      </div>
      {replies.length === 0 && (
        <Text size="sm" c="dimmed" p={6} data-testid="saved-reply-none">
          {loading ? t('common.loading') : t('conversations.savedReplies.none')}
        </Text>
      )}
    </Paper>
  );
}
