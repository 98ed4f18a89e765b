import { Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attachmentName, saveBlob } from '../../lib/api/download.ts';
import { showError } from '../../lib/errors.ts';
import { formatNumber } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { type CsvProgress, fetchReportsCsv } from './csv-export.ts';

/**
 * Exports the reports the screen's filters select as CSV, streamed by the server newest first
 * (whatever the table's sort): a dialog shows
 * the rows received against the count announced, and cancelling stops the download.
 */
export function ExportCsvButton({ where }: { where: Record<string, unknown> | undefined }) {
  const { t, i18n } = useTranslation();
  const [progress, setProgress] = useState<CsvProgress | null>(null);
  const running = useRef<AbortController | null>(null);
  const number = (value: number) => formatNumber(value, i18n.language);

  const start = async () => {
    const controller = new AbortController();
    running.current = controller;
    setProgress({ rows: 0, total: null });
    try {
      const { blob, contentDisposition, rows } = await fetchReportsCsv(where, { signal: controller.signal, onProgress: setProgress });
      saveBlob(blob, attachmentName(contentDisposition) ?? 'reports.csv');
      toast('success', t('reports.export.done', { count: rows, formatted: number(rows) }));
    } catch (error) {
      if (!controller.signal.aborted) showError(error, t);
    } finally {
      running.current = null;
      setProgress(null);
    }
  };

  const cancel = () => running.current?.abort();
  const percent = progress?.total ? Math.min(100, (progress.rows / progress.total) * 100) : progress?.total === 0 ? 100 : 0;

  return (
    <>
      <Button variant="default" leftSection={<IconFileSpreadsheet size={16} />} onClick={() => void start()} disabled={progress !== null} data-testid="reports-export">
        {t('reports.export.button')}
      </Button>
      <Modal opened={progress !== null} onClose={cancel} title={t('reports.export.title')} closeOnClickOutside={false} data-testid="reports-export-dialog">
        <Stack gap="sm">
          <Progress value={percent} animated={progress?.total === null} aria-label={t('reports.export.progress')} data-testid="reports-export-progress" />
          <Text size="sm" data-testid="reports-export-count">
            {progress?.total === null || progress?.total === undefined
              ? t('reports.export.received', { formatted: number(progress?.rows ?? 0), count: progress?.rows ?? 0 })
              : t('reports.export.receivedOf', { formatted: number(progress.rows), total: number(progress.total), count: progress.total })}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={cancel} data-testid="reports-export-cancel">
              {t('common.cancel')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
