import { renderStandalone } from '@gift/ui/standalone';
import { VendorPage } from './pages/vendor-page.tsx';

renderStandalone('Vendor', [{ path: '/vendor', Page: VendorPage }]);
