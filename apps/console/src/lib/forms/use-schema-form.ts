import { useForm, type UseFormReturnType } from '@mantine/form';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { ApiError } from '../api/client.ts';
import { type ShowErrorOptions, showError } from '../errors.ts';
import type { TenantChoice } from './tenant-choice.tsx';
import { focusFirstField, focusFirstInvalid } from './focus.ts';
import { refinementText, validateWith, valuesToSubmit } from './validation.ts';

export { FIRST_FIELD_FOCUS_MS, focusFirstInvalid } from './focus.ts';

/** Spec section 4: success and error flags reset after 3 s. */
export const STATUS_RESET_MS = 3000;

interface Options<Values extends Record<string, unknown>> extends ShowErrorOptions {
  /** The contract schema, or a loader for it: the sign-in screen loads zod only when submitted. */
  schema: z.ZodType | (() => Promise<z.ZodType>);
  initialValues: Values;
  /** Receives the valid values with empty ones dropped (a field the user emptied is sent as ''). */
  submit(values: Partial<Values>): Promise<unknown>;
  onSuccess?(result: unknown): void;
  /** A create form's tenant field (useTenantChoice), checked with the schema's fields. */
  tenant?: TenantChoice;
}

export interface SchemaForm<Values extends Record<string, unknown>> {
  form: UseFormReturnType<Values>;
  formRef: React.RefObject<HTMLFormElement | null>;
  onSubmit: (event?: React.FormEvent<HTMLFormElement>) => void;
  submitting: boolean;
  succeeded: boolean;
  failed: boolean;
}

/**
 * A form validated on submit with a contract schema, with the behaviour of spec sections 4 and 5:
 * translated messages, scroll to the first invalid field, loading submit, flags that reset,
 * server field errors shown on their fields.
 */
export function useSchemaForm<Values extends Record<string, unknown>>(options: Options<Values>): SchemaForm<Values> {
  const { t } = useTranslation();
  const formRef = useRef<HTMLFormElement | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [status, setStatus] = useState<'idle' | 'succeeded' | 'failed'>('idle');
  const form = useForm<Values>({ mode: 'controlled', initialValues: options.initialValues });

  useEffect(() => focusFirstField(formRef), []);

  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), STATUS_RESET_MS);
    return () => clearTimeout(timer);
  }, [status]);

  const { submit, onSuccess, hideError, onError } = options;
  const handleValid = useCallback(
    async (values: Values, focusedAtSubmit: Element | null) => {
      setSubmitting(true);
      try {
        const result = await submit(valuesToSubmit(values, options.initialValues));
        setStatus('succeeded');
        onSuccess?.(result);
      } catch (error) {
        setStatus('failed');
        if (error instanceof ApiError && error.body?.details) {
          const fieldErrors: Record<string, string> = {};
          for (const detail of error.body.details) {
            // A nested path (intervals.0.start) lands on its field too, when its top-level field is in the form.
            const field = detail.path?.split('.')[0];
            if (!field || !(field in values)) continue;
            fieldErrors[detail.path] = error.code && error.code !== 'invalid_input' ? t(`errors.${error.code}`, error.body.params ?? {}) : refinementText(detail.message, t);
          }
          if (Object.keys(fieldErrors).length > 0) {
            form.setErrors(fieldErrors);
            focusFirstInvalid(formRef.current, focusedAtSubmit);
          }
        }
        showError(error, t, { hideError, onError });
      } finally {
        setSubmitting(false);
      }
    },
    [submit, onSuccess, hideError, onError, form, t, options.initialValues],
  );

  const { schema, tenant } = options;
  const onSubmit = useCallback(
    (event?: React.FormEvent<HTMLFormElement>) => {
      event?.preventDefault();
      const focusedAtSubmit = document.activeElement;
      void (async () => {
        const values = form.getValues();
        const errors = validateWith(typeof schema === 'function' ? await schema() : schema, values, t);
        form.setErrors(errors);
        const tenantChosen = tenant?.validate() ?? true;
        if (Object.keys(errors).length > 0 || !tenantChosen) {
          focusFirstInvalid(formRef.current, focusedAtSubmit);
          return;
        }
        await handleValid(values, focusedAtSubmit);
      })();
    },
    [form, schema, t, handleValid, tenant],
  );

  return { form, formRef, onSubmit, submitting, succeeded: status === 'succeeded', failed: status === 'failed' };
}
