import { Button, Group, SegmentedControl, Select, Stack } from '@mantine/core';
import type { Destination } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal } from '../../lib/AppModal.tsx';
import { useAuth } from '../../lib/auth.tsx';
import { useAgentOptions } from '../destinations/AgentsField.tsx';
import { useResourceList } from '../../lib/table/use-resource.ts';
import type { TransferTarget } from './use-conversations.ts';

/** A chat destination people answer in the console (docs/conversations.md). */
export const isQueue = (destination: Destination) => destination.kind === 'chat' && destination.chat_target === 'queue';

/**
 * Another queue, or a person: the queues are the tenant's chat destinations of kind queue; the
 * people, those who may answer its chats (GET /agents), named with their presence.
 */
export function TransferDialog({ currentQueueId, onTransfer, onClose, busy }: { currentQueueId: number | undefined; onTransfer(target: TransferTarget): void; onClose(): void; busy: boolean }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<'queue' | 'agent'>('queue');
  const [choice, setChoice] = useState<string | null>(null);
  const destinations = useResourceList<Destination>('/destinations', { where: { kind: 'chat' }, order: ['name ASC'] });
  const { profile } = useAuth();
  const agents = useAgentOptions(undefined);
  // Oneself is no one to transfer to.
  const people = { ...agents, data: agents.data.filter((option) => option.value !== String(profile?.id)) };
  const queues = (destinations.data ?? []).filter((destination) => isQueue(destination) && destination.id !== currentQueueId);
  const data = kind === 'queue' ? queues.map((queue) => ({ value: String(queue.id), label: queue.name })) : people.data;
  return (
    <AppModal opened onClose={onClose} title={t('conversations.transferTitle')} size="sm">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!choice) return;
          onTransfer(kind === 'queue' ? { queue_id: Number(choice) } : { agent_id: Number(choice) });
        }}
      >
        <Stack>
          {people.data.length > 0 && (
            <SegmentedControl
              aria-label={t('conversations.transferTo')}
              value={kind}
              onChange={(value) => {
                setKind(value as 'queue' | 'agent');
                setChoice(null);
              }}
              data={[
                { value: 'queue', label: t('conversations.toQueue') },
                { value: 'agent', label: t('conversations.toAgent') },
              ]}
            />
          )}
          <Select
            label={t(kind === 'queue' ? 'conversations.toQueue' : 'conversations.toAgent')}
            data={data}
            {...(kind === 'agent' && { renderOption: people.renderOption })}
            value={choice}
            onChange={setChoice}
            searchable
            nothingFoundMessage={t('conversations.noTargets')}
            data-testid="transfer-target"
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" disabled={!choice} loading={busy} data-testid="transfer-confirm">
              {t('conversations.transfer')}
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
