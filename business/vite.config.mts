import { defineConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(
  remoteConfig('business', {
    './business-page': './src/pages/business-page.tsx',
    './manage-team-page': './src/pages/manage-team-page.tsx',
    './budget-tracking-page': './src/pages/budget-tracking-page.tsx',
    './team-gifting-page': './src/pages/team-gifting-page.tsx',
  }),
);
