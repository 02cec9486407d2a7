import { BusinessPage } from '../components/business-page.tsx';
import { teamGifting } from '../content/business-pages.content.ts';

export function TeamGiftingPage() {
  return <BusinessPage content={teamGifting} />;
}

export default TeamGiftingPage;
