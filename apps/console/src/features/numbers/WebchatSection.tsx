import { Group, Stack, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { numberLimits, type PhoneNumber } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { CopyValueButton } from '../../lib/CopyValueButton.tsx';
import type { NumberForm } from './form-values.ts';
import { errorUnder } from './RulesEditor.tsx';

/**
 * The web chat widget (docs/channels-webchat.md): the origins whose pages may use it, and once the
 * number is saved its public key and the <script> tag to paste in those pages.
 */
export function WebchatSection({ form, number }: { form: NumberForm; number: PhoneNumber | undefined }) {
  const { t } = useTranslation();
  const script = number?.webchat_script;
  return (
    <Stack gap="sm" data-testid="number-webchat">
      <TagsInput
        label={t('numbers.webchatOrigins')}
        description={t('numbers.webchatOriginsHint')}
        placeholder={t('numbers.webchatOriginsPlaceholder')}
        maxTags={numberLimits.webchatOrigins}
        splitChars={[',', ' ', ';']}
        clearable
        clearButtonProps={{ 'aria-label': t('numbers.clearChoice') }}
        {...form.getInputProps('webchat_origins')}
        error={errorUnder(form.errors, 'webchat_origins')}
        data-testid="number-webchat-origins"
      />
      {number?.webchat_key && script ? (
        <>
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <TextInput style={{ flex: 1 }} label={t('numbers.webchatKey')} value={number.webchat_key} readOnly data-testid="number-webchat-key" />
            <CopyValueButton value={number.webchat_key} label={t('numbers.copyWebchatKey')} testId="number-webchat-key-copy" />
          </Group>
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <Textarea
              style={{ flex: 1 }}
              label={t('numbers.webchatScript')}
              value={script}
              readOnly
              autosize
              minRows={2}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              data-testid="number-webchat-script"
            />
            <CopyValueButton value={script} label={t('numbers.copyWebchatScript')} testId="number-webchat-script-copy" />
          </Group>
        </>
      ) : (
        <Text size="sm" c="dimmed" data-testid="number-webchat-pending">
          {t('numbers.webchatAfterSave')}
        </Text>
      )}
    </Stack>
  );
}
