import { Accordion, Alert, Badge, Button, Checkbox, CloseButton, Group, SegmentedControl, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import type { SimulatorCallee } from '@voxplan/contracts/simulator';
import { IconAlertTriangle, IconLock, IconPlayerPlay, IconRefresh } from '@tabler/icons-react';
import type { Action } from '@voxplan/engine';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../../lib/api/client.ts';
import { useCanWrite } from '../../../../lib/auth.tsx';
import { errorText } from '../../../../lib/errors.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { CallerControls } from './CallerControls.tsx';
import { OutboundOptions, OutboundOutcome } from './OutboundOptions.tsx';
import { PromptVoice } from './prompt-voice.ts';
import { RunPath, RunReport, RunVariables } from './RunDetails.tsx';
import { type EdgeRef, pathOnPlan, type Prompt, type SimulatorChannel, type SimulatorPath, type SimulatorVersion } from './simulator-state.ts';
import { Transcript } from './Transcript.tsx';
import { useEditorContext } from '../editor-context.tsx';
import { type RunNaming, runBlockName } from './run-texts.ts';
import { useSimulator } from './use-simulator.ts';
import { VersionChoice } from './VersionChoice.tsx';

/** What the canvas lights as the run moves: blocks entered (in order), exits and edges taken, where it is now. */
export type TestPanelPath = SimulatorPath;

export interface TestPanelProps {
  planId: number;
  /** The block the user chose to start from ("start from this block"). */
  startNodeId?: string;
  onPathChange: (path: TestPanelPath) => void;
  onClose: () => void;
  /** The plan's edges as saved (the simulator runs the saved draft): with them the path names its edges. */
  edges?: readonly EdgeRef[];
  /** The plan's blocks as the editor holds them: the path and the messages name blocks by them. */
  nodes?: RunNaming['nodes'];
  /** The language (BCP 47) prompts are spoken in when a `say` names none: the plan's, when known. */
  language?: string;
}

/**
 * Counts a gather's `timeout_s` down once its prompts were spoken, as a provider would, and sends
 * the timeout when it runs out. Null while no clock runs.
 */
function useGatherClock(prompt: Prompt | null, running: boolean, voice: PromptVoice, onExpire: () => void): number | null {
  const [deadline, setDeadline] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const expire = useRef(onExpire);
  useEffect(() => {
    expire.current = onExpire;
  });
  const gather = running && prompt?.kind === 'gather' ? prompt.action : null;

  useEffect(() => {
    if (!gather) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void voice.settled().then(() => {
      if (cancelled) return;
      setDeadline(Date.now() + gather.timeout_s * 1000);
      timer = setTimeout(() => expire.current(), gather.timeout_s * 1000);
    });
    return () => {
      cancelled = true;
      clearTimeout(timer);
      setDeadline(null);
    };
  }, [gather, voice]);

  useEffect(() => {
    if (deadline === null) return;
    const ticker = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(ticker);
  }, [deadline]);

  return deadline === null ? null : Math.max(0, Math.ceil((deadline - now) / 1000));
}

/** One of a few values, each a segment, under a visible label the group is named by. */
function Choice<T extends string>({ label, options, value, onChange, disabled }: { label: string; options: Record<T, string>; value: T; onChange: (value: T) => void; disabled: boolean }) {
  const labelId = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={labelId}>
        {label}
      </Text>
      <SegmentedControl
        aria-labelledby={labelId}
        disabled={disabled}
        value={value}
        onChange={(chosen) => onChange(chosen as T)}
        data={(Object.entries(options) as Array<[T, string]>).map(([key, text]) => ({ value: key, label: text }))}
      />
    </Stack>
  );
}

/**
 * The editor's test panel: runs the saved draft or the published plan as a voice call or a chat
 * on the simulator (docs/simulator.md), shows what the plan does as it does it, and tells the
 * canvas the path to light.
 */
export function TestPanel({ planId, startNodeId, onPathChange, onClose, edges, nodes = [], language }: TestPanelProps) {
  const { t, i18n } = useTranslation();
  const { language: uiLanguage, referenceName } = useEditorContext();
  const naming: RunNaming = { language: uiLanguage, referenceName, nodes };
  const startNode = startNodeId === undefined ? undefined : nodes.find((node) => node.id === startNodeId);
  const canWrite = useCanWrite();
  const [version, setVersion] = useState<SimulatorVersion>('draft');
  const [channel, setChannel] = useState<SimulatorChannel>('voice');
  const [speaks, setSpeaks] = useState(true);
  const [timesOut, setTimesOut] = useState(true);
  // An outbound test call: the plan calls `to`, and the callee does what the tester chose.
  const [direction, setDirection] = useState<'inbound' | 'outbound'>('inbound');
  const [to, setTo] = useState('');
  const [callee, setCallee] = useState<SimulatorCallee>('human');
  const isOutbound = channel === 'voice' && direction === 'outbound';
  // "As if": a moment typed on the browser's clock (datetime-local), sent as the instant it is there.
  const [asIf, setAsIf] = useState(false);
  const [asIfAt, setAsIfAt] = useState('');
  const [asIfHoliday, setAsIfHoliday] = useState(false);
  const fallbackLanguage = language ?? (i18n.language === 'pt' ? 'pt-BR' : 'en-US');
  const languageRef = useRef(fallbackLanguage);
  const speaksRef = useRef(speaks);
  useEffect(() => {
    languageRef.current = fallbackLanguage;
    speaksRef.current = speaks;
  });
  const [voice] = useState(() => new PromptVoice(() => languageRef.current));
  useEffect(() => () => voice.stop(), [voice]);

  // Guests are refused by the server (403 readonly_only): the panel does not even ask.
  const { state, start, send, reconnect } = useSimulator(planId, canWrite, {
    onAction: (action: Action, running: SimulatorChannel | null) => {
      if (running === 'voice' && speaksRef.current) voice.enqueue(action);
    },
  });

  const waiting = state.status === 'waiting' && state.connection === 'open';
  const clock = useGatherClock(state.prompt, waiting && timesOut && state.channel === 'voice', voice, () => send({ type: 'timeout' }));

  const onPathChangeRef = useRef(onPathChange);
  useEffect(() => {
    onPathChangeRef.current = onPathChange;
  });
  // Read when the path moves, not a reason to tell it again: a host may pass a new array each render.
  const edgesRef = useRef(edges);
  useEffect(() => {
    edgesRef.current = edges;
  });
  const { path: entered, current } = state;
  useEffect(() => {
    onPathChangeRef.current(pathOnPlan({ path: entered, current }, planId, edgesRef.current));
  }, [entered, current, planId]);

  const ready = canWrite && state.connection === 'open' && (!isOutbound || to.trim() !== '');
  const started = state.status !== 'none';
  const running = state.channel ?? channel;

  const begin = () => {
    voice.stop();
    const at = asIfAt === '' ? undefined : new Date(asIfAt);
    const asIfOption = asIf ? { ...(at && !Number.isNaN(at.getTime()) && { at: at.toISOString() }), holiday: asIfHoliday } : undefined;
    start({
      channel,
      version,
      ...(startNodeId !== undefined && { start_node: startNodeId }),
      ...(asIfOption && { as_if: asIfOption }),
      ...(isOutbound && { outbound: { to: to.trim(), callee } }),
    });
  };

  return (
    <Stack gap="sm" p="sm" component="section" aria-label={t('testPanel.title')} data-testid="test-panel">
      <Group justify="space-between" wrap="nowrap">
        <Title order={2} size="h4">
          {t('testPanel.title')}
        </Title>
        <Group gap="xs" wrap="nowrap">
          <Badge variant="dot" color={state.connection === 'open' ? 'green' : state.connection === 'refused' || state.connection === 'closed' ? 'red' : 'gray'} data-testid="test-panel-connection">
            {t(`testPanel.connection.${canWrite ? state.connection : 'refused'}`)}
          </Badge>
          <CloseButton aria-label={t('testPanel.close')} onClick={onClose} />
        </Group>
      </Group>

      {!canWrite && (
        <Alert color="yellow" icon={<IconLock size={18} />} data-testid="test-panel-guest">
          {t('testPanel.guest')}
        </Alert>
      )}
      {startNodeId !== undefined && (
        <Text size="sm" data-testid="test-panel-starts-at">
          {t('testPanel.startsAt', { node: startNode ? runBlockName(startNode.id, startNode.type, naming) : startNodeId })}
        </Text>
      )}

      <VersionChoice disabled={!canWrite} value={version} onChange={setVersion} />
      <Choice label={t('testPanel.channel')} disabled={!canWrite} value={channel} onChange={setChannel} options={{ voice: t('testPanel.voice'), chat: t('testPanel.chat') }} />
      {channel === 'voice' && (
        <Choice
          label={t('testPanel.direction')}
          disabled={!canWrite}
          value={direction}
          onChange={setDirection}
          options={{ inbound: t('testPanel.inbound'), outbound: t('testPanel.outbound.choice') }}
        />
      )}
      {isOutbound && <OutboundOptions to={to} onToChange={setTo} callee={callee} onCalleeChange={setCallee} disabled={!canWrite} />}
      {channel === 'voice' && (
        <Group gap="md">
          <Switch size="sm" label={t('testPanel.speakPrompts')} checked={speaks} disabled={!canWrite} onChange={(event) => setSpeaks(event.currentTarget.checked)} />
          <Switch size="sm" label={t('testPanel.autoTimeout')} checked={timesOut} disabled={!canWrite} onChange={(event) => setTimesOut(event.currentTarget.checked)} data-testid="test-panel-auto-timeout" />
        </Group>
      )}

      <Switch size="sm" label={t('testPanel.asIf')} checked={asIf} disabled={!canWrite} onChange={(event) => setAsIf(event.currentTarget.checked)} data-testid="test-panel-as-if" />
      {asIf && (
        <Stack gap={6} pl="md">
          <TextInput
            type="datetime-local"
            size="sm"
            label={t('testPanel.asIfAt')}
            description={t('testPanel.asIfHint')}
            value={asIfAt}
            disabled={!canWrite}
            onChange={(event) => setAsIfAt(event.currentTarget.value)}
            data-testid="test-panel-as-if-at"
          />
          <Checkbox size="sm" label={t('testPanel.asIfHoliday')} checked={asIfHoliday} disabled={!canWrite} onChange={(event) => setAsIfHoliday(event.currentTarget.checked)} data-testid="test-panel-as-if-holiday" />
        </Stack>
      )}

      <Group gap="xs">
        <Button leftSection={started ? <IconRefresh size={16} /> : <IconPlayerPlay size={16} />} disabled={!ready} onClick={begin} data-testid="test-panel-start">
          {t(started ? 'testPanel.restart' : 'testPanel.start')}
        </Button>
        {canWrite && state.connection === 'closed' && (
          <Button variant="default" onClick={reconnect}>
            {t('testPanel.reconnect')}
          </Button>
        )}
      </Group>

      {canWrite && state.connection === 'closed' && (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} role="alert">
          {t('testPanel.connectionLost')}
        </Alert>
      )}
      {state.endedByRenewal && state.connection !== 'closed' && (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />} data-testid="test-panel-renewed">
          {t('testPanel.endedByRenewal')}
        </Alert>
      )}
      {state.errors.slice(-3).map((entry, index) => (
        <Alert key={index} color="red" icon={<IconAlertTriangle size={18} />} role="alert" data-testid="test-panel-error">
          {errorText(new ApiError(entry.error.statusCode, entry.error), t)}
        </Alert>
      ))}

      {state.asIf && (
        <Text size="sm" data-testid="test-panel-ran-as-if">
          {t(state.asIf.holiday ? 'testPanel.ranAsIfHoliday' : 'testPanel.ranAsIf', { at: formatDateTime(state.asIf.at, i18n.language) })}
        </Text>
      )}
      {state.outbound && <OutboundOutcome outbound={state.outbound} ended={state.status === 'ended'} />}
      <Text size="sm" c="dimmed" aria-live="polite" data-testid="test-panel-status">
        {clock !== null ? t('testPanel.timesOutIn', { seconds: clock }) : t(`testPanel.status.${state.status}`)}
      </Text>

      <Transcript entries={state.transcript} naming={naming} />

      {started && state.status !== 'ended' && <CallerControls channel={running} prompt={state.prompt} canAnswer={waiting} send={send} />}

      <Accordion multiple defaultValue={['path', 'variables', 'report']} variant="contained">
        <Accordion.Item value="path">
          <Accordion.Control>{t('testPanel.path')}</Accordion.Control>
          <Accordion.Panel>
            <RunPath path={state.path} naming={naming} />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="variables">
          <Accordion.Control>{t('testPanel.variables')}</Accordion.Control>
          <Accordion.Panel>
            <Stack gap={4}>
              <RunVariables variables={state.variables} />
              {state.status !== 'ended' && (
                <Text size="xs" c="dimmed">
                  {t('testPanel.variablesWhen')}
                </Text>
              )}
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
        {state.report && (
          <Accordion.Item value="report">
            <Accordion.Control>{t('testPanel.report.title')}</Accordion.Control>
            <Accordion.Panel>
              <RunReport report={state.report} naming={naming} />
            </Accordion.Panel>
          </Accordion.Item>
        )}
      </Accordion>
    </Stack>
  );
}

export default TestPanel;
