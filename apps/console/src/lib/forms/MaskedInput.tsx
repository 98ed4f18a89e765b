import { TextInput, type TextInputProps } from '@mantine/core';
import { applyMask, type MaskKind } from './masks.ts';

const inputModes: Partial<Record<MaskKind, TextInputProps['inputMode']>> = {
  number: 'decimal',
  digit: 'numeric',
  taxId: 'numeric',
  postalCode: 'numeric',
  phone: 'tel',
  e164: 'tel',
  callerPrefixes: 'tel',
  money: 'decimal',
  url: 'url',
  uri: 'url',
  time: 'numeric',
};

/** A text field that shapes what is typed with one of the masks of spec section 5 (passwords use PasswordInput). */
export function MaskedInput({
  mask,
  value,
  onChange,
  ...props
}: Omit<TextInputProps, 'onChange' | 'value'> & { mask: Exclude<MaskKind, 'password'>; value: string; onChange(value: string): void }) {
  return (
    <TextInput
      {...props}
      inputMode={inputModes[mask]}
      value={value}
      onChange={(event) => onChange(applyMask(mask, event.currentTarget.value))}
    />
  );
}
