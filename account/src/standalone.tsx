import { ConfirmDeletionPage } from './pages/confirm-deletion-page.tsx';
import { renderStandalone } from '@gift/ui/standalone';
import { DeleteAccountPage } from './pages/delete-account-page.tsx';

renderStandalone('Account', [
  { path: '/delete-account', Page: DeleteAccountPage },
  { path: '/delete-account/confirm', Page: ConfirmDeletionPage },
]);
