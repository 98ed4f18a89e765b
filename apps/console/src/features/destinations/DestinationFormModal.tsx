import { SegmentedControl, Select, Stack, Textarea, TextInput } from '@mantine/core';
import {
  type ChatTarget,
  chatTargets,
  type Destination,
  type DestinationKind,
  defaultClosingMessages,
  destinationClosingMessageMax,
  destinationCreateSchema,
  destinationKinds,
  destinationUpdateSchema,
  destinationUriMaxLength,
} from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { MaskedInput } from '../../lib/forms/MaskedInput.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { AgentsField } from './AgentsField.tsx';
import { kindLabelKey } from './kinds.ts';

type Values = {
  name: string;
  kind: DestinationKind;
  uri: string;
  description: string;
  chat_target: ChatTarget | null;
  agent_ids: number[];
  closing_message_en: string;
  closing_message_pt: string;
};

/**
 * Create (no destination) or edit (a destination). The URI field's hint and example follow the
 * kind; an edit sends the kind and the URI together, so the schema checks them as a pair. A chat
 * destination hands the chat to a URL (an outside desk) or to a queue, whose agents are chosen
 * here and answer in the console (docs/conversations.md).
 */
export function DestinationFormModal({ destination, opened, onClose }: { destination?: Destination; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!destination);
  const { create, update } = useResourceMutations<Destination, Partial<Values>>('/destinations', { createIn: tenant.tenantId });
  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema: destination ? destinationUpdateSchema : destinationCreateSchema,
    tenant,
    initialValues: {
      name: destination?.name ?? '',
      kind: destination?.kind ?? 'voice',
      uri: destination?.uri ?? '',
      description: destination?.description ?? '',
      chat_target: destination?.chat_target ?? null,
      agent_ids: destination?.agent_ids ?? [],
      closing_message_en: destination?.closing_message_en ?? '',
      closing_message_pt: destination?.closing_message_pt ?? '',
    },
    submit: (values) => (destination ? update.mutateAsync({ id: destination.id, input: values }) : create.mutateAsync(values)),
    onSuccess: () => {
      toast('success', t(destination ? 'destinations.edited' : 'destinations.created'));
      onClose();
    },
  });
  const { kind, chat_target: chatTarget } = form.getValues();
  const queue = kind === 'chat' && chatTarget === 'queue';

  return (
    <AppModal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={opened}
      onClose={onClose}
      size="md"
      title={useDialogTitle('destinations', destination ? 'edit' : 'create')}
    >
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <TextInput label={t('destinations.name')} withAsterisk autoComplete="off" maxLength={100} {...form.getInputProps('name')} data-testid="destination-name" />
          <Select
            label={t('destinations.kind')}
            withAsterisk
            allowDeselect={false}
            data={destinationKinds.map((value) => ({ value, label: t(kindLabelKey(value)) }))}
            {...form.getInputProps('kind')}
            onChange={(value) => {
              const next = (value ?? 'voice') as DestinationKind;
              form.setFieldValue('kind', next);
              // A voice destination has no chat target; a chat one hands to a URL unless told otherwise.
              form.setFieldValue('chat_target', next === 'chat' ? (chatTarget ?? 'url') : null);
              // The message said what the other kind wants; the next submit says what this one does.
              form.clearFieldError('uri');
            }}
            data-testid="destination-kind"
          />
          {kind === 'chat' && (
            <SegmentedControl
              aria-label={t('destinations.chatTarget')}
              value={chatTarget ?? 'url'}
              onChange={(value) => {
                form.setFieldValue('chat_target', value as ChatTarget);
                // A queue takes no URL: one typed before would be refused.
                if (value === 'queue') form.setFieldValue('uri', '');
                form.clearFieldError('uri');
              }}
              data={chatTargets.map((value) => ({ value, label: t(`destinations.chatTargets.${value}`) }))}
              // The form's width, each choice wrapping on its half: on one line, the Portuguese choices ran off the dialog at 1280 and 390 px.
              fullWidth
              styles={{ label: { whiteSpace: 'normal', overflow: 'visible', textOverflow: 'clip' } }}
              data-testid="destination-chat-target"
            />
          )}
          {queue ? (
            <>
              <AgentsField
                tenantId={destination?.tenant_id ?? tenant.tenantId}
                value={form.values.agent_ids}
                onChange={(ids) => form.setFieldValue('agent_ids', ids)}
                error={form.errors.agent_ids as string | undefined}
              />
              {/* The customer's last message when an agent resolves the chat, in the chat's language; empty sends the default shown. */}
              {(['en', 'pt'] as const).map((language) => (
                <Textarea
                  key={language}
                  label={t(`destinations.closingMessage.${language}`)}
                  description={t('destinations.closingMessage.hint')}
                  placeholder={defaultClosingMessages[language]}
                  autosize
                  minRows={2}
                  maxRows={5}
                  maxLength={destinationClosingMessageMax}
                  {...form.getInputProps(`closing_message_${language}`)}
                  data-testid={`destination-closing-${language}`}
                />
              ))}
            </>
          ) : (
          <MaskedInput
            mask="uri"
            label={t('destinations.uri')}
            description={t(`destinations.uriHint.${kind}`)}
            placeholder={t(`destinations.uriPlaceholder.${kind}`)}
            withAsterisk
            autoComplete="off"
            spellCheck={false}
            maxLength={destinationUriMaxLength}
            {...form.getInputProps('uri')}
            value={form.values.uri}
            data-testid="destination-uri"
          />
          )}
          <Textarea
            label={t('destinations.description')}
            autosize
            minRows={2}
            maxRows={6}
            maxLength={500}
            {...form.getInputProps('description')}
            data-testid="destination-description"
          />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="destination-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
