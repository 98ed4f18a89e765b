import { PlaceholderPage } from '../../placeholder/PlaceholderPage.tsx';

/** One plan on the canvas. */
export default function EditorPage() {
  return <PlaceholderPage titleKey="nav.visualPlan" />;
}
