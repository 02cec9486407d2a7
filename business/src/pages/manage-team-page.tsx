import { BusinessPage } from '../components/business-page.tsx';
import { manageTeam } from '../content/business-pages.content.ts';

export function ManageTeamPage() {
  return <BusinessPage content={manageTeam} />;
}

export default ManageTeamPage;
