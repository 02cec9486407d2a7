import { renderStandalone } from '@gift/ui/standalone';
import { BudgetTrackingPage } from './pages/budget-tracking-page.tsx';
import { BusinessHomePage } from './pages/business-page.tsx';
import { ManageTeamPage } from './pages/manage-team-page.tsx';
import { TeamGiftingPage } from './pages/team-gifting-page.tsx';

renderStandalone('Business', [
  { path: '/business', Page: BusinessHomePage },
  { path: '/manageteam', Page: ManageTeamPage },
  { path: '/budget-tracking', Page: BudgetTrackingPage },
  { path: '/team-gifting', Page: TeamGiftingPage },
]);
