import { renderStandalone } from '@gift/ui/standalone';
import { ShareLocationPage } from './pages/share-location-page.tsx';

renderStandalone('Share location', [{ path: '/share-location/*', Page: ShareLocationPage }]);
