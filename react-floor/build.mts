/**
 * Builds the React floor with the site's Vite and React plugin, then renders its page on the server into the built
 * HTML (as the site prerenders its pages) and writes the HTML floor beside it: the same page without its scripts.
 * Every text file gets the Brotli copy the site's builds get.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { build } from 'vite';
import { precompress } from '@gift/federation/vite';
import { App } from './src/app.tsx';

const root = fileURLToPath(new URL('.', import.meta.url));
const dist = `${root}dist`;
await build({ root, logLevel: 'warn', plugins: [react(), precompress()], build: { outDir: dist, emptyOutDir: true } });

const html = readFileSync(`${dist}/index.html`, 'utf8').replace('<!--app-->', renderToString(createElement(App)));
const plain = html
  .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
  .replace(/<link[^>]+rel="modulepreload"[^>]*>/g, '')
  .replace('<title>React floor</title>', '<title>HTML floor</title>');
for (const [file, text] of Object.entries({ 'index.html': html, 'plain.html': plain })) {
  writeFileSync(`${dist}/${file}`, text);
  writeFileSync(`${dist}/${file}.br`, brotliCompressSync(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
}
console.log(`React floor built in ${dist}`);
