import { Alert, Badge, Button, Code, DataList, Group, Paper, Progress, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip, useMantineTheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconAlertTriangle, IconCertificate, IconCloudDownload, IconRefresh, IconTrash } from '@tabler/icons-react';
import type { LicenseInfo, LicenseLimits } from '@voxplan/contracts';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import { confirmRemoval } from '../../lib/confirm.tsx';
import { showError } from '../../lib/errors.ts';
import { formatDate, formatDateTime, formatNumber } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { PageError } from '../../lib/PageError.tsx';
import { ActivateLicenseModal } from './ActivateLicenseModal.tsx';
import { expiryOf, grantsLimits, stateColors, usageOf } from './license-view.ts';
import { useLicense, useLicenseActions } from './use-license.ts';

const limitKeys: (keyof LicenseLimits)[] = ['concurrent_sessions', 'tenants', 'numbers'];

// The default label colour (dimmed) is below the AA contrast ratio, as on System info.
const dataListStyles = { itemLabel: { color: 'var(--mantine-color-text)', fontWeight: 600 } };

/** Labels beside their values, or above them on a phone, where a label column would leave the values a few letters a line. */
function Details({ children }: { children: ReactNode }) {
  const wide = useMediaQuery(`(min-width: ${useMantineTheme().breakpoints.sm})`, true, { getInitialValueInEffect: false });
  return (
    <DataList labelWidth="11rem" withDivider orientation={wide ? 'horizontal' : 'vertical'} styles={dataListStyles}>
      {children}
    </DataList>
  );
}

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <DataList.Item>
      <DataList.ItemLabel>{label}</DataList.ItemLabel>
      <DataList.ItemValue data-testid={testId} style={{ wordBreak: 'break-word' }}>
        {children}
      </DataList.ItemValue>
    </DataList.Item>
  );
}

function Expiration({ expiresAt }: { expiresAt: string | null }) {
  const { t, i18n } = useTranslation();
  const expiry = expiryOf(expiresAt, new Date());
  if (expiry.kind === 'never') return t('license.never');
  return (
    <Group gap="xs">
      <span>{formatDate(expiresAt, i18n.language)}</span>
      {expiry.kind === 'soon' && (
        <Badge color="orange.9" variant="filled" leftSection={<IconAlertTriangle size={12} />} data-testid="license-expiry-warning">
          {t('license.expiresIn', { count: expiry.days })}
        </Badge>
      )}
      {expiry.kind === 'passed' && (
        <Badge color="pink.9" variant="filled" data-testid="license-expiry-warning">
          {t('license.expired')}
        </Badge>
      )}
    </Group>
  );
}

function LicenseDetails({ info }: { info: LicenseInfo }) {
  const { t, i18n } = useTranslation();
  const license = info.license;
  const when = (value: string | null) => formatDateTime(value, i18n.language) ?? '—';
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Group justify="space-between">
          <Title order={3}>{t('license.details')}</Title>
          <Badge size="lg" color={stateColors[info.state]} variant="filled" data-testid="license-state" data-state={info.state}>
            {t(`license.states.${info.state}`)}
          </Badge>
        </Group>
        {license === null ? (
          <Text size="sm" data-testid="license-none">
            {t('license.noneText')}
          </Text>
        ) : (
          <Details>
            <Row label={t('license.client')} testId="license-client">
              {license.client}
            </Row>
            <Row label={t('license.product')} testId="license-product">
              {license.product}
            </Row>
            <Row label={t('license.serial')} testId="license-serial">
              <Code>{license.serial}</Code>
            </Row>
            <Row label={t('license.expiration')} testId="license-expiration">
              <Expiration expiresAt={license.expires_at} />
            </Row>
            {/* No one by name when the licence came with the installation (LICENSE_FILE). */}
            <Row label={t('license.activation')} testId="license-activated">
              {info.activated_by ? t('license.activatedBy', { time: when(info.activated_time), name: info.activated_by }) : when(info.activated_time)}
            </Row>
          </Details>
        )}
        <Details>
          <Row label={t('license.lastSync')} testId="license-last-sync">
            <Stack gap={2}>
              <span>
                {info.last_sync_time ? t('license.syncedAt', { time: when(info.last_sync_time), result: t(`license.syncResults.${info.last_sync_result ?? 'error'}`) }) : t('license.neverSynced')}
              </span>
              {!info.sync_configured && (
                <Text id="license-sync-hint" size="sm" c="dimmed" data-testid="license-sync-hint">
                  {t('license.syncOff')}
                </Text>
              )}
            </Stack>
          </Row>
        </Details>
      </Stack>
    </Paper>
  );
}

function LimitsAndUsage({ info }: { info: LicenseInfo }) {
  const { t, i18n } = useTranslation();
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Title order={3}>{t('license.limits')}</Title>
        {!grantsLimits(info.state) && (
          <Text size="sm" data-testid="license-default-limits">
            {t('license.defaultLimitsApply')}
          </Text>
        )}
        {limitKeys.map((key) => {
          const used = info.usage[key];
          const limit = info.limits[key];
          const { percent, color } = usageOf(used, limit);
          const label = t(`license.limitNames.${key}`);
          return (
            <Stack key={key} gap={4} data-testid={`license-usage-${key}`}>
              <Group justify="space-between">
                <Text size="sm" fw={600}>
                  {label}
                </Text>
                <Text size="sm" data-testid={`license-usage-${key}-text`}>
                  {t('license.usedOf', { used: formatNumber(used, i18n.language), limit: formatNumber(limit, i18n.language) })}
                </Text>
              </Group>
              <Progress value={percent} color={color} aria-label={label} />
            </Stack>
          );
        })}
      </Stack>
    </Paper>
  );
}

/** An id the vendor asks for, with a button that copies it. */
function IdToCopy({ title, hint, value, copyLabel, testId }: { title: string; hint: string; value: string; copyLabel: string; testId: string }) {
  return (
    <Stack gap="xs">
      <Title order={3}>{title}</Title>
      <Text size="sm">{hint}</Text>
      <Group gap="xs" wrap="nowrap">
        <Code block data-testid={testId} style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {value}
        </Code>
        <CopyValueButton value={value} label={copyLabel} testId={`${testId}-copy`} />
      </Group>
    </Stack>
  );
}

/** What a licence is issued for: the installation (every instance on this database), or this one server. */
function HardwareId({ info }: { info: LicenseInfo }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="lg">
      <Stack gap="lg">
        <IdToCopy
          title={t('license.installationId')}
          hint={t('license.installationIdHint')}
          value={info.installation_id}
          copyLabel={t('license.copyInstallationId')}
          testId="license-installation-id"
        />
        <IdToCopy title={t('license.hardwareId')} hint={t('license.hardwareIdHint')} value={info.hardware_id} copyLabel={t('license.copyHardwareId')} testId="license-hardware-id" />
      </Stack>
    </Paper>
  );
}

/** The toast a finished sync deserves: the licence server's word, good or bad. */
const syncToasts = {
  renewed: 'success',
  unchanged: 'success',
  blocked: 'warning',
  canceled: 'warning',
  error: 'error',
} as const;

/**
 * The licence (administrators, from the user menu): its state, the limits it grants and what is
 * used of them, this installation's id and this server's hardware id for the vendor, and activation, refresh, sync and removal.
 */
export default function LicensePage() {
  const { t } = useTranslation();
  const info = useLicense();
  const actions = useLicenseActions();
  const [activating, setActivating] = useState(false);
  const data = info.data;
  const busy = actions.refresh.isPending || actions.sync.isPending || actions.remove.isPending;

  const refresh = () =>
    actions.refresh.mutate(undefined, {
      onSuccess: (result) => toast('success', t('license.refreshed', { state: t(`license.states.${result.state}`) })),
      onError: (error) => showError(error, t),
    });
  const sync = () =>
    actions.sync.mutate(undefined, {
      onSuccess: (result) => {
        const outcome = result.last_sync_result ?? 'unchanged';
        toast(syncToasts[outcome], t(`license.syncToasts.${outcome}`));
      },
      onError: (error) => showError(error, t),
    });
  const remove = () =>
    confirmRemoval({
      title: t('license.removeTitle'),
      message: t('license.removeMessage'),
      onConfirm: () =>
        actions.remove.mutate(undefined, {
          onSuccess: () => toast('success', t('license.removed')),
          onError: (error) => showError(error, t),
        }),
    });

  const syncButton = (
    <Button
      variant="default"
      leftSection={<IconCloudDownload size={16} />}
      loading={actions.sync.isPending}
      // Kept focusable when off, so the hint saying why reaches the keyboard and screen readers too.
      data-disabled={data?.sync_configured ? undefined : true}
      aria-disabled={data?.sync_configured ? undefined : true}
      aria-describedby={data?.sync_configured ? undefined : 'license-sync-hint'}
      onClick={(event) => (data?.sync_configured ? sync() : event.preventDefault())}
      data-testid="license-sync"
    >
      {t('license.sync')}
    </Button>
  );

  return (
    <Stack maw={1100}>
      <Group justify="space-between">
        <Title order={2}>{t('account.license')}</Title>
        {data && (
          <Group gap="xs">
            <Button leftSection={<IconCertificate size={16} />} onClick={() => setActivating(true)} disabled={busy} data-testid="license-activate">
              {t('license.activate')}
            </Button>
            {data.license && (
              <Button variant="default" leftSection={<IconRefresh size={16} />} loading={actions.refresh.isPending} disabled={busy} onClick={refresh} data-testid="license-refresh">
                {t('license.refresh')}
              </Button>
            )}
            {data.sync_configured ? syncButton : <Tooltip label={t('license.syncOff')}>{syncButton}</Tooltip>}
            {data.license && (
              <Button variant="default" color="red" leftSection={<IconTrash size={16} />} loading={actions.remove.isPending} disabled={busy} onClick={remove} data-testid="license-remove">
                {t('license.remove')}
              </Button>
            )}
          </Group>
        )}
      </Group>
      {info.isError ? (
        <PageError error={info.error} onRetry={() => void info.refetch()} />
      ) : !data ? (
        <Skeleton height={240} />
      ) : (
        <>
          {data.problem ? (
            <Alert color="red" icon={<IconAlertTriangle />} title={t('license.problemTitle')} data-testid="license-problem" data-problem={data.problem}>
              {t(`license.problems.${data.problem}`)}
            </Alert>
          ) : (
            data.state === 'without_license' && (
              <Alert color="blue" icon={<IconCertificate />} title={t('license.withoutTitle')} data-testid="license-without">
                {t('license.withoutText')}
              </Alert>
            )
          )}
          <SimpleGrid cols={{ base: 1, md: 2 }} aria-busy={info.isFetching}>
            <LicenseDetails info={data} />
            <LimitsAndUsage info={data} />
          </SimpleGrid>
          <HardwareId info={data} />
        </>
      )}
      {activating && (
        <ActivateLicenseModal
          onClose={() => setActivating(false)}
          onActivated={(result) => {
            setActivating(false);
            toast('success', t('license.activated', { client: result.license?.client ?? '' }));
          }}
        />
      )}
    </Stack>
  );
}
