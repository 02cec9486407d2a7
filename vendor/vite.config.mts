import { defineConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(remoteConfig('vendor', { './vendor-page': './src/pages/vendor-page.tsx' }));
