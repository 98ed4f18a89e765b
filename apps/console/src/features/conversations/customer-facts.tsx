import { Anchor } from '@mantine/core';
import type { ChatCustomer } from '@voxplan/contracts';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';

/**
 * What the channel told of the customer beyond their name (docs/conversations.md, "Who the customer
 * is"): their e-mail, the page the chat came from, and the site's own id of a signed-in user. Shared
 * by the conversation's view and the report of its session.
 */
export function customerFacts(customer: ChatCustomer | null | undefined, t: TFunction): Array<[string, ReactNode]> {
  if (!customer) return [];
  const facts: Array<[string, ReactNode]> = [];
  if (customer.email) facts.push([t('conversations.customerEmail'), customer.email]);
  if (customer.page_url) {
    facts.push([
      t('conversations.customerPage'),
      <Anchor href={customer.page_url} target="_blank" rel="noopener noreferrer" size="sm" style={{ overflowWrap: 'anywhere' }}>
        {customer.page_url}
      </Anchor>,
    ]);
  }
  if (customer.verified && customer.external_id) facts.push([t('conversations.customerAccount'), customer.external_id]);
  return facts;
}
