import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderEmail } from './branded-email.tsx';
import { emailSamples } from './email-samples.ts';

/** `pnpm --filter api emails <folder>`: writes each email's HTML and text parts, with sample values, to look at. */
const folder = resolve(process.argv[2] ?? 'email-previews');
mkdirSync(folder, { recursive: true });
for (const [name, content] of Object.entries(emailSamples)) {
  const { html, text } = renderEmail(content);
  writeFileSync(join(folder, `${name}.html`), html);
  writeFileSync(join(folder, `${name}.txt`), text);
}
console.log(`Wrote ${Object.keys(emailSamples).length} emails to ${folder}`);
