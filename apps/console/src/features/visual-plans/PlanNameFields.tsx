import { Textarea, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { visualPlanLimits } from '@voxplan/contracts/visual-plan';
import { useTranslation } from 'react-i18next';

/** A plan's name and description, as the new, rename and import forms ask them; test ids `<prefix>-name`, `<prefix>-description`. */
export function PlanNameFields({ name, description, testIdPrefix }: { name: GetInputPropsReturnType; description: GetInputPropsReturnType; testIdPrefix: string }) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput label={t('plans.name')} withAsterisk autoComplete="off" maxLength={visualPlanLimits.name} {...name} data-testid={`${testIdPrefix}-name`} />
      <Textarea
        label={t('plans.description')}
        autosize
        minRows={2}
        maxRows={6}
        maxLength={visualPlanLimits.description}
        {...description}
        data-testid={`${testIdPrefix}-description`}
      />
    </>
  );
}
