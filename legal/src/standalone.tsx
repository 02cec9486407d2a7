import { renderStandalone } from '@gift/ui/standalone';
import { PrivacyPage } from './pages/privacy-page.tsx';
import { TermsPage } from './pages/terms-page.tsx';

renderStandalone('Legal', [
  { path: '/privacy', Page: PrivacyPage },
  { path: '/terms', Page: TermsPage },
]);
