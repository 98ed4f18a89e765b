import { Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconPhoneOff, IconSend } from '@tabler/icons-react';
import type { reportDialStatuses } from '@voxplan/contracts';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Prompt, SimulatorChannel } from './simulator-state.ts';
import type { SimulatorSend } from './use-simulator.ts';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;
/** The outcomes a tester picks for a dial: the simulator places no real call. */
const DIAL_OUTCOMES = ['answer', 'busy', 'no_answer', 'failed'] as const satisfies ReadonlyArray<(typeof reportDialStatuses)[number]>;
/** The most keys one `digits` input carries (docs/simulator.md). */
const MAX_KEYS = 32;

/** A text field with its send button, sent with Enter too. */
function SendField({ label, buttonLabel, disabled, maxLength, onSend, testId }: { label: string; buttonLabel: string; disabled: boolean; maxLength: number; onSend: (text: string) => void; testId: string }) {
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (disabled || text.trim() === '') return;
    onSend(text);
    setText('');
  };
  return (
    <form onSubmit={submit}>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput style={{ flex: 1 }} label={label} value={text} maxLength={maxLength} onChange={(event) => setText(event.currentTarget.value)} disabled={disabled} data-testid={testId} />
        <Button type="submit" disabled={disabled || text.trim() === ''} leftSection={<IconSend size={16} />}>
          {buttonLabel}
        </Button>
      </Group>
    </form>
  );
}

/**
 * Keys pressed build up until the gather has as many as it takes (then they go at once), or until
 * the tester sends them: one `digits` input is what a caller typed for one prompt.
 */
function Keypad({ maxDigits, disabled, onDigits }: { maxDigits: number | undefined; disabled: boolean; onDigits: (digits: string) => void }) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const press = (key: string) => {
    const next = `${typed}${key}`;
    if (next.length >= Math.min(maxDigits ?? MAX_KEYS, MAX_KEYS)) {
      setTyped('');
      onDigits(next);
    } else setTyped(next);
  };
  return (
    <Stack gap={6}>
      <SimpleGrid cols={3} spacing={6} verticalSpacing={6} role="group" aria-label={t('testPanel.keypad')} data-testid="test-panel-keypad">
        {KEYS.map((key) => (
          <Button key={key} variant="default" size="md" disabled={disabled} onClick={() => press(key)} aria-label={t('testPanel.key', { key })}>
            {key}
          </Button>
        ))}
      </SimpleGrid>
      {typed !== '' && (
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text size="sm" aria-live="polite" data-testid="test-panel-typed">
            {t('testPanel.typed', { digits: typed })}
          </Text>
          <Group gap={6}>
            <Button size="compact-sm" variant="subtle" onClick={() => setTyped('')}>
              {t('testPanel.clearKeys')}
            </Button>
            <Button
              size="compact-sm"
              disabled={disabled}
              onClick={() => {
                setTyped('');
                onDigits(typed);
              }}
            >
              {t('testPanel.sendKeys')}
            </Button>
          </Group>
        </Group>
      )}
    </Stack>
  );
}

export interface CallerControlsProps {
  channel: SimulatorChannel;
  prompt: Prompt | null;
  /** False while an input runs or when no session waits: the controls stay in place, disabled. */
  canAnswer: boolean;
  send: SimulatorSend;
}

/** What the caller can do: keys, speech, messages, menu options, a dial's outcome, the timeout, hanging up. */
export function CallerControls({ channel, prompt, canAnswer, send }: CallerControlsProps) {
  const { t } = useTranslation();
  const disabled = !canAnswer;
  return (
    <Stack gap="sm">
      {prompt?.kind === 'dial' && (
        <Stack gap={6} role="group" aria-label={t('testPanel.dialQuestion', { name: prompt.action.name })}>
          <Text size="sm" fw={500}>
            {t('testPanel.dialQuestion', { name: prompt.action.name })}
          </Text>
          <SimpleGrid cols={2} spacing={6}>
            {DIAL_OUTCOMES.map((status) => (
              <Button key={status} variant="light" disabled={disabled} onClick={() => send({ type: 'dial_result', status })}>
                {t(`testPanel.dialStatus.${status}`)}
              </Button>
            ))}
          </SimpleGrid>
        </Stack>
      )}
      {prompt?.kind === 'handoff' && (
        <Text size="sm" role="status" data-testid="test-panel-handoff">
          {t('testPanel.handoffWaiting', { name: prompt.action.name })}
        </Text>
      )}
      {channel === 'chat' && prompt?.kind === 'options' && (
        <Group gap={6} role="group" aria-label={t('testPanel.options')}>
          {prompt.options.map((option) => (
            <Button key={option.id} variant="light" disabled={disabled} onClick={() => send({ type: 'message', text: option.id }, option.label)}>
              {option.label}
            </Button>
          ))}
        </Group>
      )}
      {channel === 'voice' ? (
        <>
          <Keypad maxDigits={prompt?.kind === 'gather' ? prompt.action.max_digits : undefined} disabled={disabled} onDigits={(digits) => send({ type: 'digits', digits })} />
          <SendField label={t('testPanel.speech')} buttonLabel={t('testPanel.say')} disabled={disabled} maxLength={4000} onSend={(text) => send({ type: 'speech', text })} testId="test-panel-speech" />
        </>
      ) : (
        <SendField label={t('testPanel.message')} buttonLabel={t('testPanel.send')} disabled={disabled} maxLength={4096} onSend={(text) => send({ type: 'message', text })} testId="test-panel-message" />
      )}
      <Group gap="xs">
        <Button variant="default" disabled={disabled} onClick={() => send({ type: 'timeout' })}>
          {t(channel === 'voice' ? 'testPanel.timeout' : 'testPanel.idleTimeout')}
        </Button>
        <Button color="red" variant="light" disabled={disabled} leftSection={<IconPhoneOff size={16} />} onClick={() => send({ type: 'hangup' })}>
          {t(channel === 'voice' ? 'testPanel.hangup' : 'testPanel.endChat')}
        </Button>
      </Group>
    </Stack>
  );
}
