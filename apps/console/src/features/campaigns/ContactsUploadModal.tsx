import { Alert, Button, FileInput, Grid, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { bytesPerMb, type Campaign, type CampaignImportResult, campaignLimits } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { showError } from '../../lib/errors.ts';
import { formatNumber } from '../../lib/format.ts';
import { type ColumnChoice, type ColumnRole, columnRoles, guessColumns, type MappingProblem, mappingProblems, toMapping } from './column-mapping.ts';
import { type CsvPreview, previewCsvFile } from './csv-preview.ts';
import { InvalidRowsTable } from './InvalidRowsTable.tsx';
import { CAMPAIGNS } from './status.ts';

const ACCEPT = '.csv,.txt,text/csv,text/plain';

function problemText(problem: MappingProblem, t: (key: string, options?: Record<string, unknown>) => string): string {
  switch (problem.kind) {
    case 'phone_missing':
      return t('campaigns.contacts.phoneMissing');
    case 'role_twice':
      return t('campaigns.contacts.roleTwice', { role: t(`campaigns.contacts.roles.${problem.role}`) });
    case 'variable_invalid':
      return t('campaigns.contacts.variableInvalid', { column: problem.column });
    case 'variable_twice':
      return t('campaigns.contacts.variableTwice', { column: problem.column });
  }
}

/**
 * Each column of the header: a sample of its values, what it is, and the variable's name when it
 * is one. A row of four on a wide screen, a small card of its own on a phone.
 */
function MappingTable({ preview, choices, onChange }: { preview: CsvPreview; choices: ColumnChoice[]; onChange(choices: ColumnChoice[]): void }) {
  const { t } = useTranslation();
  const roleData = columnRoles.map((role) => ({ value: role, label: t(`campaigns.contacts.roles.${role}`) }));
  const set = (index: number, change: Partial<ColumnChoice>) => onChange(choices.map((choice, i) => (i === index ? { ...choice, ...change } : choice)));
  const span = { base: 12, sm: 3 };
  return (
    <Stack gap={0} data-testid="contacts-mapping">
      <Grid visibleFrom="sm" gap="xs" pb={4}>
        {(['column', 'sample', 'use', 'variable'] as const).map((heading) => (
          <Grid.Col key={heading} span={span}>
            <Text size="sm" fw={700}>
              {t(`campaigns.contacts.${heading}`)}
            </Text>
          </Grid.Col>
        ))}
      </Grid>
      {choices.map((choice, index) => (
        <Grid key={`${index}:${choice.column}`} gap="xs" align="center" py={6} style={{ borderTop: '1px solid var(--mantine-color-default-border)' }} data-testid="contacts-mapping-row">
          <Grid.Col span={span}>
            <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
              {choice.column}
            </Text>
          </Grid.Col>
          <Grid.Col span={span}>
            <Text size="xs" c="dimmed" truncate="end">
              {preview.rows
                .map((row) => row[index])
                .filter(Boolean)
                .slice(0, 3)
                .join(' · ') || '—'}
            </Text>
          </Grid.Col>
          <Grid.Col span={{ base: 6, sm: 3 }}>
            <Select
              aria-label={t('campaigns.contacts.useOf', { column: choice.column })}
              data={roleData}
              allowDeselect={false}
              value={choice.role}
              onChange={(value) => set(index, { role: (value ?? 'ignore') as ColumnRole })}
              data-testid={`contacts-role-${index}`}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 6, sm: 3 }}>
            {choice.role === 'variable' && (
              <TextInput
                aria-label={t('campaigns.contacts.variableOf', { column: choice.column })}
                value={choice.variable}
                maxLength={64}
                onChange={(event) => set(index, { variable: event.currentTarget.value })}
                data-testid={`contacts-variable-${index}`}
              />
            )}
          </Grid.Col>
        </Grid>
      ))}
    </Stack>
  );
}

/**
 * A contact list for a campaign: the browser reads the CSV's header and first rows to offer the
 * column mapping, then sends the whole file with it; the answer says how many were taken and
 * lists the invalid lines with their line number and why.
 */
export function ContactsUploadModal({ campaign, onClose }: { campaign: Campaign; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string>();
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const [tried, setTried] = useState(false);
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<CampaignImportResult | null>(null);
  const problems = mappingProblems(choices);
  const number = (value: number) => formatNumber(value, i18n.language);

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setPreview(null);
    setTried(false);
    setFileError(undefined);
    if (!chosen) return;
    if (chosen.size > campaignLimits.contactFileMb * bytesPerMb) {
      setFileError(t('errors.csv_too_large', { maxRows: number(campaignLimits.contactRows), maxMb: campaignLimits.contactFileMb }));
      return;
    }
    const read = await previewCsvFile(chosen);
    if (!read) {
      setFileError(t('campaigns.contacts.noHeader'));
      return;
    }
    setPreview(read);
    setChoices(guessColumns(read));
  };

  const send = async () => {
    setTried(true);
    if (!file || !preview || problems.length > 0) return;
    setSending(true);
    try {
      const body = new FormData();
      // The mapping before the file: the server reads the fields as they arrive.
      body.append('mapping', JSON.stringify(toMapping(choices, preview.delimiter)));
      body.append('file', file, file.name);
      setResult(await api.post<CampaignImportResult>(`${CAMPAIGNS}/${campaign.id}/contacts`, body));
      void queryClient.invalidateQueries({ queryKey: [CAMPAIGNS] });
    } catch (error) {
      showError(error, t);
    } finally {
      setSending(false);
    }
  };

  return (
    <AppModal opened onClose={onClose} size="3xl" title={t('campaigns.contacts.title', { name: campaign.name })}>
      {result ? (
        <Stack>
          <Alert color={result.invalid > 0 ? 'yellow' : 'teal'} icon={result.invalid > 0 ? <IconAlertTriangle size={18} /> : <IconCircleCheck size={18} />} data-testid="contacts-result">
            <Text size="sm">
              {t('campaigns.contacts.imported', { count: result.imported, formatted: number(result.imported) })}{' '}
              {result.invalid > 0 && t('campaigns.contacts.invalid', { count: result.invalid, formatted: number(result.invalid) })}
            </Text>
          </Alert>
          {result.invalid_rows.length > 0 && <InvalidRowsTable rows={result.invalid_rows} total={result.invalid} />}
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="contacts-close">
              {t('common.close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <Text size="sm" c="dimmed">
            {t('campaigns.contacts.hint', { rows: number(campaignLimits.contactRows), maxSize: campaignLimits.contactFileMb })}
          </Text>
          <FileInput
            label={t('campaigns.contacts.file')}
            placeholder={t('campaigns.contacts.filePlaceholder')}
            withAsterisk
            clearable
            clearButtonProps={{ 'aria-label': t('common.clearFile') }}
            accept={ACCEPT}
            leftSection={<IconUpload size={16} />}
            value={file}
            error={fileError}
            onChange={(chosen) => void choose(chosen)}
            data-testid="contacts-file"
          />
          {preview && (
            <>
              <Text size="sm">{t('campaigns.contacts.mappingHint')}</Text>
              <MappingTable preview={preview} choices={choices} onChange={setChoices} />
              {tried && problems.length > 0 && (
                <Alert color="red" icon={<IconAlertTriangle size={18} />} data-testid="contacts-mapping-problems">
                  {problems.map((problem) => (
                    <Text key={JSON.stringify(problem)} size="sm">
                      {problemText(problem, t)}
                    </Text>
                  ))}
                </Alert>
              )}
            </>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button loading={sending} disabled={!preview} onClick={() => void send()} data-testid="contacts-upload">
              {t('campaigns.contacts.upload')}
            </Button>
          </Group>
        </Stack>
      )}
    </AppModal>
  );
}
