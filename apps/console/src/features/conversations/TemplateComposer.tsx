import { Alert, Badge, Button, Group, Loader, Paper, ScrollArea, Select, Stack, Text } from '@mantine/core';
import { IconSend, IconTemplate } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { type TemplateParameter, type TemplateParameterType, templateText, type TemplateValues, type WhatsAppTemplate } from '@voxplan/contracts/whatsapp-templates';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { errorText } from '../../lib/errors.ts';
import { KindSelect, kindOfExample, parameterLabel, sentValue, TemplateField, type TextKind } from './template-fields.tsx';
import { CONVERSATIONS_KEY } from './use-conversation-feed.ts';

export interface TemplateRequest {
  name: string;
  language: string;
  values: TemplateValues;
  /** Text parameters sent as a currency or a date (the template does not say; the agent chose). */
  types: Record<string, 'currency' | 'date_time'>;
}

/** Header and body texts may be sent as text, a currency or a date; a media header and a button's suffix are what they are. */
const choosesKind = (parameter: TemplateParameter) => parameter.type === 'text' && parameter.component !== 'button';

const keyOf = (template: Pick<WhatsAppTemplate, 'name' | 'language'>) => `${template.name}|${template.language}`;

/** The approved templates of the chat's number (GET /conversations/{id}/templates). */
function useChatTemplates(conversationId: number) {
  const { tenantId } = useAuth();
  return useQuery({
    queryKey: [CONVERSATIONS_KEY, 'templates', tenantId, conversationId],
    queryFn: ({ signal }) => api.get<WhatsAppTemplate[]>(`/conversations/${conversationId}/templates`, { signal }),
    // Templates change with a sync, not with the chat's events.
    staleTime: 60_000,
  });
}

/**
 * Outside the customer service window the free-text box gives way to this: a picker of the number's
 * approved templates, a field per parameter (TemplateField), a preview of the text the customer
 * will read, and Send. A refusal (a value the server or Meta does not take) is shown beside it.
 */
export function TemplateComposer({ conversationId, onSend }: { conversationId: number; onSend(request: TemplateRequest): Promise<unknown> }) {
  const { t } = useTranslation();
  const templates = useChatTemplates(conversationId);
  const [chosen, setChosen] = useState<string | null>(null);
  const [values, setValues] = useState<TemplateValues>({});
  const [kinds, setKinds] = useState<Record<string, TextKind>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const list = templates.data ?? [];
  const template = list.find((candidate) => keyOf(candidate) === chosen);

  if (templates.isLoading) return <Loader size="sm" aria-label={t('common.loading')} />;
  if (templates.isError) return <Alert color="red">{errorText(templates.error, t)}</Alert>;
  if (list.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="template-none">
        {t('conversations.template.none')}
      </Text>
    );
  }

  const kindOf = (parameter: TemplateParameter): TemplateParameterType => (choosesKind(parameter) ? (kinds[parameter.key] ?? kindOfExample(parameter.example)) : parameter.type);
  const filled: TemplateValues = {};
  const types: TemplateRequest['types'] = {};
  for (const parameter of template?.parameters ?? []) {
    const kind = kindOf(parameter);
    const value = sentValue(kind, values[parameter.key] ?? '');
    if (value) filled[parameter.key] = value;
    if (choosesKind(parameter) && (kind === 'currency' || kind === 'date_time')) types[parameter.key] = kind;
  }
  const send = async () => {
    if (!template || sending) return;
    const absent = template.parameters.filter((parameter) => !filled[parameter.key]).map((parameter) => parameter.key);
    setMissing(absent);
    if (absent.length > 0) return;
    setSending(true);
    setRefusal(null);
    try {
      await onSend({ name: template.name, language: template.language, values: filled, types });
      setValues({});
      setKinds({});
      setChosen(null);
    } catch (error) {
      setRefusal(errorText(error, t));
    } finally {
      setSending(false);
    }
  };
  const media = template?.parameters.find((parameter) => parameter.component === 'header' && parameter.type !== 'text');

  return (
    <Stack gap="xs" data-testid="template-composer">
      <Select
        label={t('conversations.template.pick')}
        placeholder={t('conversations.template.pickPlaceholder')}
        leftSection={<IconTemplate size={16} />}
        data={list.map((candidate) => ({ value: keyOf(candidate), label: `${candidate.name} (${candidate.language})` }))}
        value={chosen}
        onChange={(next) => {
          setChosen(next);
          setValues({});
          setKinds({});
          setMissing([]);
          setRefusal(null);
        }}
        searchable
        nothingFoundMessage={t('conversations.template.noMatch')}
        comboboxProps={{ withinPortal: true }}
        data-testid="template-picker"
      />
      {template && (
        <>
          {/* The form scrolls on its own, so that the transcript above and Send below stay on the screen. */}
          <ScrollArea.Autosize mah={{ base: '26vh', md: '34vh' }} type="auto" offsetScrollbars data-testid="template-form">
            <Stack gap="xs">
              {template.parameters.map((parameter) => {
                const field = (
                  <TemplateField
                    parameter={parameter}
                    kind={kindOf(parameter)}
                    label={parameterLabel(parameter, template.buttons, t)}
                    language={template.language}
                    value={values[parameter.key] ?? ''}
                    error={missing.includes(parameter.key) ? t('conversations.template.required') : undefined}
                    onChange={(value) => setValues((current) => ({ ...current, [parameter.key]: value }))}
                  />
                );
                if (!choosesKind(parameter)) return <div key={parameter.key}>{field}</div>;
                return (
                  <Group key={parameter.key} gap="xs" align="flex-start" wrap="nowrap">
                    <div style={{ flex: 1, minWidth: 0 }}>{field}</div>
                    <KindSelect
                      parameterKey={parameter.key}
                      value={kindOf(parameter) as TextKind}
                      onChange={(kind) => {
                        setKinds((current) => ({ ...current, [parameter.key]: kind }));
                        // A value of another kind would not read as this one.
                        setValues((current) => ({ ...current, [parameter.key]: '' }));
                      }}
                    />
                  </Group>
                );
              })}
              <Paper withBorder p="xs" radius="md" data-testid="template-preview">
                <Group gap={6} mb={4}>
                  <Text size="xs" fw={600} c="dimmed">
                    {t('conversations.template.preview')}
                  </Text>
                  <Badge size="xs" variant="light" color="indigo">
                    {t(`conversations.template.category.${template.category}`, { defaultValue: template.category })}
                  </Badge>
                </Group>
                {media && (
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    {t(`conversations.template.media.${media.type}`)}: {filled[media.key] ?? '—'}
                  </Text>
                )}
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {templateText(template, filled)}
                </Text>
                {template.buttons.length > 0 && (
                  <Group gap={4} mt={6}>
                    {template.buttons.map((button) => (
                      <Badge key={button.index} variant="outline" color="gray" size="sm" tt="none">
                        {button.text}
                      </Badge>
                    ))}
                  </Group>
                )}
              </Paper>
            </Stack>
          </ScrollArea.Autosize>
          {refusal && (
            <Text size="sm" c="var(--mantine-color-error)" role="alert" data-testid="template-error">
              {refusal}
            </Text>
          )}
          <Group justify="flex-end">
            <Button leftSection={<IconSend size={16} />} onClick={() => void send()} loading={sending} data-testid="template-send">
              {t('conversations.template.send')}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
