/**
 * Writes the headings' face: Inter at weight 700, its printable Latin glyphs and kerning alone (8 KiB), small enough
 * for every page to preload so that a first visit's headings are painted in the brand's type (issue 89). The body
 * keeps the metric-matched local face until the whole family arrives (tokens.css). Run
 * `pnpm --filter @gift/ui subset-heading-font` after changing the characters; the file it writes is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import subsetFont from 'subset-font';
import { headingFontCharacters } from '../src/heading-font.ts';

const require = createRequire(import.meta.url);
const inter = readFileSync(require.resolve('@fontsource-variable/inter/files/inter-latin-wght-normal.woff2'));
const subset = await subsetFont(inter, headingFontCharacters, {
  targetFormat: 'woff2',
  variationAxes: { wght: 700 },
  keepFeatures: ['kern'],
  noLayoutClosure: true,
  noHinting: true,
});
const file = new URL('../src/fonts/inter-headings-700.woff2', import.meta.url);
writeFileSync(file, subset);
console.log(`${file.pathname}: ${subset.length} bytes, ${[...headingFontCharacters].length} characters`);
