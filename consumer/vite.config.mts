import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { carouselLayoutCss, heroSlideCount } from './src/components/carousel-layout.ts';
import { heroCarouselLayout, imageCarouselSettings } from './src/components/carousel-settings.ts';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

const config = remoteConfig('consumer', exposedPages('consumer'));

/**
 * `virtual:carousel-layout.css`: the hero carousel's layout at every width, written from its settings (carousel-
 * layout.ts) into the page's stylesheet, so that it costs the browser no script. One slide per screen in
 * src/assets/slides (landing.content.ts shows them all; a unit test keeps the two together).
 */
const layoutFile = fileURLToPath(new URL('src/components/carousel-layout.generated.css', import.meta.url));
const carouselLayout: Plugin = {
  name: 'carousel-layout',
  resolveId: (id) => (id === 'virtual:carousel-layout.css' ? layoutFile : undefined),
  load: (id) =>
    id === layoutFile
      ? carouselLayoutCss(imageCarouselSettings, heroSlideCount(), `[data-carousel-layout="${heroCarouselLayout}"]`)
      : undefined,
};

const browserOnly = {
  resolve: {
    alias: { 'resize-observer-polyfill': fileURLToPath(new URL('src/native-resize-observer.ts', import.meta.url)) },
  },
};

export default defineConfig((env) =>
  mergeConfig(config(env), { plugins: [carouselLayout], ...(env.isSsrBuild ? {} : browserOnly) }),
);
