import { Alert, Button, FileInput, Group, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconUpload } from '@tabler/icons-react';
import { bytesPerMb, type DoNotCallImportResult, doNotCallLimits } from '@voxplan/contracts';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { formatNumber } from '../../lib/format.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { DO_NOT_CALL } from './use-do-not-call.ts';

type Values = { file: File | null };

const ACCEPT = '.csv,.txt,text/csv,text/plain';

/** What an import did: the counts, then every invalid line the server listed, by its line in the file. */
function ImportSummary({ result, onClose }: { result: DoNotCallImportResult; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const number = (value: number) => formatNumber(value, i18n.language);
  const unlisted = result.invalid_count - result.invalid.length;
  return (
    <Stack>
      <Alert color="teal" icon={<IconCircleCheck size={18} />} data-testid="dnc-import-summary">
        <Text size="sm">
          {t('doNotCall.importAdded', { count: result.added, formatted: number(result.added) })} ·{' '}
          {t('doNotCall.importDuplicates', { count: result.duplicates, formatted: number(result.duplicates) })}
        </Text>
      </Alert>
      {result.invalid_count > 0 && (
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} title={t('doNotCall.importInvalid', { count: result.invalid_count, formatted: number(result.invalid_count) })}>
          <ScrollArea.Autosize mah={260}>
            <Table verticalSpacing={4} data-testid="dnc-import-invalid">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('doNotCall.line')}</Table.Th>
                  <Table.Th>{t('doNotCall.value')}</Table.Th>
                  <Table.Th>{t('doNotCall.problem')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {result.invalid.map((line) => (
                  <Table.Tr key={line.line} data-testid="dnc-import-invalid-line">
                    <Table.Td>{number(line.line)}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{line.value === '' ? '—' : line.value}</Table.Td>
                    <Table.Td>{t(`doNotCall.problems.${line.problem}`)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
          {unlisted > 0 && (
            <Text size="xs" mt="xs">
              {t('doNotCall.importUnlisted', { count: unlisted, formatted: number(unlisted) })}
            </Text>
          )}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={onClose} data-testid="dnc-import-close">
          {t('common.close')}
        </Button>
      </Group>
    </Stack>
  );
}

/** A CSV or a plain list of numbers, checked for its size here and read by the server; says what it did. */
export function DoNotCallImportModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { invalidate } = useResourceMutations(DO_NOT_CALL);
  const tenant = useTenantChoice(true);
  const [result, setResult] = useState<DoNotCallImportResult | null>(null);
  const schema = useMemo(
    () =>
      z.object({
        file: z
          .custom<File>((value) => value instanceof File, 'required')
          .refine((file) => file.size <= doNotCallLimits.importMb * bytesPerMb, t('errors.file_too_large', { maxSize: doNotCallLimits.importMb })),
      }),
    [t],
  );
  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema,
    initialValues: { file: null },
    tenant,
    submit: (values) => {
      const body = new FormData();
      if (values.file) body.append('file', values.file, values.file.name);
      return api.post<DoNotCallImportResult>(`${DO_NOT_CALL}/import`, body, { tenantId: tenant.tenantId });
    },
    onSuccess: (answer) => {
      setResult(answer as DoNotCallImportResult);
      void invalidate();
    },
  });

  return (
    <AppModal opened={opened} onClose={onClose} size="lg" title={t('doNotCall.importTitle')}>
      {result ? (
        <ImportSummary result={result} onClose={onClose} />
      ) : (
        <form ref={formRef} onSubmit={onSubmit} noValidate>
          <Stack>
            <TenantChoiceField choice={tenant} />
            <Text size="sm" c="dimmed">
              {t('doNotCall.importHint')}
            </Text>
            <FileInput
              label={t('doNotCall.file')}
              description={t('doNotCall.fileHint', { maxSize: doNotCallLimits.importMb })}
              placeholder={t('doNotCall.filePlaceholder')}
              withAsterisk
              clearable
              accept={ACCEPT}
              leftSection={<IconUpload size={16} />}
              {...form.getInputProps('file')}
              onChange={(file) => {
                form.setFieldValue('file', file);
                form.clearFieldError('file');
              }}
              data-testid="dnc-import-file"
            />
            <FormActions onCancel={onClose} submitting={submitting} submitTestId="dnc-import-submit" submitLabel={t('doNotCall.importAction')} />
          </Stack>
        </form>
      )}
    </AppModal>
  );
}
