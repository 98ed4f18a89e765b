import { Alert, Radio, Stack, Text, TextInput } from '@mantine/core';
import { IconPhoneOutgoing } from '@tabler/icons-react';
import { type SimulatorCallee, simulatorCallees } from '@voxplan/contracts/simulator';
import { useTranslation } from 'react-i18next';

/**
 * An outbound test call's options (docs/simulator.md, "An outbound call"): the number the plan
 * calls, as a person types it, and what happens at the other end.
 */
export function OutboundOptions({
  to,
  onToChange,
  callee,
  onCalleeChange,
  disabled,
}: {
  to: string;
  onToChange: (to: string) => void;
  callee: SimulatorCallee;
  onCalleeChange: (callee: SimulatorCallee) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap={6} pl="md">
      <TextInput
        size="sm"
        type="tel"
        label={t('testPanel.outbound.to')}
        description={t('testPanel.outbound.toHint')}
        value={to}
        maxLength={100}
        disabled={disabled}
        onChange={(event) => onToChange(event.currentTarget.value)}
        data-testid="test-panel-outbound-to"
      />
      <Radio.Group size="sm" label={t('testPanel.outbound.callee')} value={callee} onChange={(value) => onCalleeChange(value as SimulatorCallee)} data-testid="test-panel-callee">
        <Stack gap={6} mt={4}>
          {simulatorCallees.map((choice) => (
            <Radio key={choice} value={choice} disabled={disabled} label={t(`testPanel.outbound.callees.${choice}`)} />
          ))}
        </Stack>
      </Radio.Group>
    </Stack>
  );
}

/**
 * What became of the outbound test call, in the tester's words: who answered while the plan runs,
 * or, when nobody did, how the dial ended (the plan never ran).
 */
export function OutboundOutcome({ outbound, ended }: { outbound: { to: string; callee: SimulatorCallee }; ended: boolean }) {
  const { t } = useTranslation();
  const answered = outbound.callee === 'human' || outbound.callee === 'machine';
  if (answered) {
    return (
      <Text size="sm" data-testid="test-panel-outbound">
        {t(`testPanel.outbound.answered.${outbound.callee}`, { to: outbound.to })}
      </Text>
    );
  }
  return (
    // The outcome as body text: an alert's title takes the alert's own colour, too faint on yellow.
    <Alert color="yellow" icon={<IconPhoneOutgoing size={18} />} data-testid="test-panel-outbound">
      <Text size="sm" fw={600}>
        {t(`testPanel.outbound.unanswered.${outbound.callee}`)}
      </Text>
      <Text size="sm">{ended ? t('testPanel.outbound.notRun', { to: outbound.to }) : t('testPanel.outbound.dialing', { to: outbound.to })}</Text>
    </Alert>
  );
}
