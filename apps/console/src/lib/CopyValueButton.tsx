import { ActionIcon, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Copies a value to the clipboard; says "Copied" for two seconds after. `label` names what is copied (default "Copy"). */
export function CopyValueButton({ value, label, testId }: { value: string; label?: string; testId: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('common.copied') : t('common.copy')} withArrow>
          <ActionIcon
            variant={copied ? 'filled' : 'default'}
            color={copied ? 'teal' : undefined}
            size="lg"
            aria-label={copied ? t('common.copied') : (label ?? t('common.copy'))}
            onClick={copy}
            data-testid={testId}
          >
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}
