import { PlaceholderPage } from '../placeholder/PlaceholderPage.tsx';

/** The tenant's plans. */
export default function PlansPage() {
  return <PlaceholderPage titleKey="nav.visualPlan" />;
}
