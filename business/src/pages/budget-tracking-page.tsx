import { BusinessPage } from '../components/business-page.tsx';
import { budgetTracking } from '../content/business-pages.content.ts';

export function BudgetTrackingPage() {
  return <BusinessPage content={budgetTracking} />;
}

export default BudgetTrackingPage;
