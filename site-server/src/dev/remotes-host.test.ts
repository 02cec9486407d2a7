import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRemotesHost } from './remotes-host.ts';

describe('the remotes host (a CDN for REMOTES_DIR)', () => {
  it('serves remote code to the site’s origins only, as scripts that can be nothing else', async () => {
    const remotesDir = mkdtempSync(join(tmpdir(), 'remotes-host-'));
    mkdirSync(join(remotesDir, 'legal', 'v1'), { recursive: true });
    writeFileSync(join(remotesDir, 'legal', 'v1', 'remoteEntry.js'), 'export const legal = 1;');
    const app = await createRemotesHost({ remotesDir, siteOrigins: ['https://site.example'] });
    const response = await app.inject({
      url: '/legal/v1/remoteEntry.js',
      headers: { origin: 'https://site.example' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': 'https://site.example',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
      'content-security-policy': "default-src 'none'",
    });
    const elsewhere = await app.inject({
      url: '/legal/v1/remoteEntry.js',
      headers: { origin: 'https://evil.example' },
    });
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
    await app.close();
  });
});
