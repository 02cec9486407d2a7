import { defineConfig } from 'vite';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(remoteConfig('share_location', exposedPages('share_location')));
