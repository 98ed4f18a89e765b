import { type Campaign, type CampaignRetries, campaignRetryOutcomes, defaultCampaignRetries } from '@voxplan/contracts';

/** The campaign form's values: pickers speak strings, null while nothing is chosen. */
export type CampaignValues = {
  name: string;
  plan_id: string | null;
  number_id: string | null;
  date_range_id: string | null;
  calls_per_second: number | string;
  max_concurrent: number | string;
  retries: CampaignRetries;
  machine_detection: boolean;
};

const idText = (id: number | null | undefined): string | null => (id === null || id === undefined ? null : String(id));
const idOf = (text: string | null | undefined): number | null => (text ? Number(text) : null);
/** A number input left empty holds ''; the schema then says the field is required. */
const numberOf = (value: number | string | undefined): number | undefined => (value === '' || value === undefined ? undefined : Number(value));

export function initialValues(campaign?: Campaign): CampaignValues {
  return {
    name: campaign?.name ?? '',
    plan_id: idText(campaign?.plan_id),
    number_id: idText(campaign?.number_id),
    date_range_id: idText(campaign?.date_range_id),
    calls_per_second: campaign?.calls_per_second ?? 1,
    max_concurrent: campaign?.max_concurrent ?? 10,
    retries: structuredClone(campaign?.retries ?? defaultCampaignRetries),
    machine_detection: campaign?.machine_detection ?? false,
  };
}

/**
 * The body the API takes. The schedule is always sent (null: at any time), so that clearing it on
 * an edit clears it; the plan and number are left out of an edit once the campaign has started,
 * as the server does not take them then.
 */
export function toInput(values: Partial<CampaignValues>, { fixedPlanAndNumber = false } = {}): Record<string, unknown> {
  const retries = values.retries
    ? Object.fromEntries(
        campaignRetryOutcomes.map((outcome) => {
          const retry = values.retries![outcome];
          return [outcome, { attempts: numberOf(retry.attempts), delay_min: numberOf(retry.delay_min) }];
        }),
      )
    : undefined;
  return {
    ...(values.name !== undefined && { name: values.name }),
    ...(!fixedPlanAndNumber && { plan_id: idOf(values.plan_id) ?? undefined, number_id: idOf(values.number_id) ?? undefined }),
    date_range_id: idOf(values.date_range_id),
    calls_per_second: numberOf(values.calls_per_second),
    max_concurrent: numberOf(values.max_concurrent),
    retries,
    machine_detection: values.machine_detection ?? false,
  };
}
