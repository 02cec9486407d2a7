import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabaseWhenReachable, readConfig } from 'api';
import { freePort } from 'api/test/databases';
import { createSiteServer } from '../server.ts';

describe('/healthz while the API’s database is away', () => {
  it('stays 200 as pages are served, says degraded and names the database to operators only', async () => {
    const root = mkdtempSync(join(tmpdir(), 'site-health-'));
    mkdirSync(join(root, 'shell/dist'), { recursive: true });
    writeFileSync(join(root, 'shell/dist/index.html'), '<!doctype html><title>shell</title><div id="root"></div>');
    mkdirSync(join(root, 'consumer/dist'), { recursive: true });
    writeFileSync(join(root, 'consumer/dist/remoteEntry.js'), 'export const consumer = 1;');
    // PostgreSQL where nothing answers: stopped, never reached since start.
    const port = await freePort();
    const config = readConfig({ DATABASE_URL: `postgres://site@127.0.0.1:${port}/site`, DATA_DIR: join(root, 'data') });
    const { db, ready } = await openDatabaseWhenReachable(config);
    const app = await createSiteServer({ root, api: { db, config, databaseReady: ready } });
    try {
      const operator = await app.inject({ url: '/healthz' });
      expect(operator.statusCode).toBe(200);
      expect(operator.json()).toMatchObject({
        status: 'degraded',
        database: 'down',
        databaseName: `PostgreSQL 127.0.0.1:${port}/site`,
      });
      const balancer = await app.inject({ url: '/healthz', remoteAddress: '203.0.113.9' });
      expect(balancer.statusCode).toBe(200);
      expect(balancer.json()).toEqual({ status: 'degraded', database: 'down' });
      // A proxy on this machine passing a visitor on, whichever header it says so with: the visitor's summary.
      for (const forwarded of [{ forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }]) {
        expect((await app.inject({ url: '/healthz', headers: forwarded })).json()).toEqual(balancer.json());
      }
      expect((await app.inject({ url: '/' })).statusCode).toBe(200);
      const post = await app.inject({
        method: 'POST',
        url: '/api/delete-account',
        payload: { name: 'Ann Lee', email: 'ann@example.com', reason: 'Moving on.' },
      });
      expect(post.statusCode).toBe(503);
      expect(post.headers['retry-after']).toBe('5');
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
