import type { UseFormReturnType } from '@mantine/form';
import type { NumberProvider, PhoneNumber, WebchatPrechatField } from '@voxplan/contracts';

/** A rule as the form holds it: pickers speak strings, null while nothing is chosen. */
export interface RuleValues {
  date_range_id: string | null;
  caller_prefixes: string[];
  plan_id: string | null;
}

export type NumberValues = {
  number: string;
  description: string;
  provider: NumberProvider;
  voice_plan_id: string | null;
  chat_plan_id: string | null;
  rules: RuleValues[];
  whatsapp_verify_token: string;
  whatsapp_token: string;
  whatsapp_phone_number_id: string;
  whatsapp_app_secret: string;
  whatsapp_business_account_id: string;
  /** A tier's figure, or `unlimited`: a picker speaks strings. */
  whatsapp_daily_limit: string;
  webchat_origins: string[];
  webchat_prechat: WebchatPrechatField[];
};

export type NumberForm = UseFormReturnType<NumberValues>;

/** The daily limit's picker value for Meta's unlimited tier. */
export const UNLIMITED = 'unlimited';

const idText = (id: number | null): string | null => (id === null ? null : String(id));
const idOf = (text: string | null | undefined): number | null => (text ? Number(text) : null);

export function initialValues(number?: PhoneNumber): NumberValues {
  return {
    number: number?.number ?? '',
    description: number?.description ?? '',
    provider: number?.provider ?? 'twilio',
    voice_plan_id: idText(number?.voice_plan_id ?? null),
    chat_plan_id: idText(number?.chat_plan_id ?? null),
    rules: (number?.rules ?? []).map((rule) => ({ date_range_id: idText(rule.date_range_id), caller_prefixes: [...rule.caller_prefixes], plan_id: idText(rule.plan_id) })),
    whatsapp_verify_token: number?.whatsapp_verify_token ?? '',
    whatsapp_token: number?.whatsapp_token ?? '',
    whatsapp_phone_number_id: number?.whatsapp_phone_number_id ?? '',
    whatsapp_app_secret: number?.whatsapp_app_secret ?? '',
    whatsapp_business_account_id: number?.whatsapp_business_account_id ?? '',
    whatsapp_daily_limit: number?.whatsapp_daily_limit == null ? UNLIMITED : String(number.whatsapp_daily_limit),
    webchat_origins: [...(number?.webchat_origins ?? [])],
    webchat_prechat: [...(number?.webchat_prechat ?? [])],
  };
}

export const emptyRule = (): RuleValues => ({ date_range_id: null, caller_prefixes: [], plan_id: null });

/**
 * The body the API takes, from the form's values (empty ones already dropped). The plans are
 * always sent, so that clearing a picker on an edit clears the plan; a rule without a plan is
 * left without one, for the schema to call it required.
 */
export function toInput(values: Partial<NumberValues>): Record<string, unknown> {
  return {
    ...values,
    voice_plan_id: idOf(values.voice_plan_id),
    chat_plan_id: idOf(values.chat_plan_id),
    ...(values.whatsapp_daily_limit !== undefined && { whatsapp_daily_limit: values.whatsapp_daily_limit === UNLIMITED ? null : Number(values.whatsapp_daily_limit) }),
    rules: (values.rules ?? []).map((rule) => ({
      date_range_id: idOf(rule.date_range_id),
      caller_prefixes: rule.caller_prefixes,
      ...(rule.plan_id && { plan_id: Number(rule.plan_id) }),
    })),
  };
}
