/** What BlockForm's two test files share: the records a form may pick, the editor's services, a block's filled-in data, the form rendered, and its fields found and chosen. */
import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { vi } from 'vitest';
import { blockEditor } from '../../editor-registry.ts';
import type { ReferenceKind } from '../define.ts';
import { BlockForm } from './BlockForm.tsx';
import { type FieldDescriptor, newBlockData } from './form-model.ts';
import type { EditorServices } from './types.ts';

// Mantine's text areas listen for web fonts loading, which happy-dom does not have.
if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { value: new EventTarget() });


export const records: Record<ReferenceKind, Array<{ value: number; label: string }>> = {
  destination: [
    { value: 7, label: 'Reception' },
    { value: 8, label: 'Sales queue' },
  ],
  audio: [
    { value: 7, label: 'Welcome' },
    { value: 8, label: 'Goodbye' },
  ],
  date_range: [
    { value: 7, label: 'Office hours' },
    { value: 8, label: 'Weekends' },
  ],
  plan: [
    { value: 7, label: 'Support' },
    { value: 8, label: 'Billing' },
  ],
};

export function makeServices(overrides: Partial<EditorServices> = {}): EditorServices {
  return {
    language: 'en',
    readOnly: false,
    useReferenceOptions: (kind) => ({ options: records[kind], loading: false }),
    playAudio: vi.fn(),
    variableNames: ['caller', 'called', 'channel', 'protocol', 'total'],
    isSettingOn: () => true,
    ...overrides,
  };
}

/** What completes each block's new data (tables of form-model.test.ts: the rest is the defaults). */
export const fill: Record<string, Record<string, unknown>> = {
  destination: { destination_id: 7 },
  date_range: { date_range_id: 7 },
  play_message: { voice_text: 'Welcome to {{called}}' },
  api_switch: { url: 'https://api.example.com/{{caller}}', attribute: 'status', cases: [{ value: 'ok', exit: 'paid' }] },
  send_dtmf: { digits: '12w#' },
  speech_detection: { variables: [{ name: 'city', description: 'the city named' }] },
  http_request: { url: 'https://api.example.com', headers: { 'X-Tenant': '{{tenant_id}}' }, body: '{"caller": "{{caller}}"}' },
  call_plan: { plan_id: 7 },
  variable: { assignments: [{ name: 'total', value: '=1 + 1' }] },
  recording: { analyses: [{ kind: 'summary', max_length: 200 }] },
};

export const dataOf = (type: string): Record<string, unknown> => ({ ...newBlockData(blockEditor(type)!), ...fill[type] });

/** Renders the form of a block around state, as the side panel does, and records every change. */
export function renderForm(type: string, options: { data?: Record<string, unknown>; issues?: Map<string, string>; services?: EditorServices } = {}) {
  const changes: Array<Record<string, unknown>> = [];
  const services = options.services ?? makeServices();
  function Harness() {
    const [data, setData] = useState(options.data ?? dataOf(type));
    return (
      <BlockForm
        type={type}
        data={data}
        onChange={(next) => {
          changes.push(next);
          setData(next);
        }}
        issues={options.issues ?? new Map()}
        services={services}
      />
    );
  }
  render(
    <MantineProvider>
      <Harness />
    </MantineProvider>,
  );
  return { changes, last: () => changes.at(-1), services };
}

export const input = (path: string) => screen.getByTestId(`field-${path}`) as HTMLInputElement;

export async function choose(path: string, optionText: string) {
  fireEvent.click(input(path));
  fireEvent.click(await screen.findByRole('option', { name: optionText }));
}

export const isScalar = (field: FieldDescriptor) => !['list', 'variants', 'record'].includes(field.kind);
