import { renderStandalone } from '@gift/ui/standalone';
import { LandingPage } from './pages/landing-page.tsx';
import { ScrollLockPage } from './pages/scroll-lock-page.tsx';

renderStandalone('Consumer', [
  { path: '/', Page: LandingPage },
  { path: '/test', Page: ScrollLockPage },
]);
