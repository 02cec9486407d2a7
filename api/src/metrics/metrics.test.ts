import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { postTo, testApi, validBody } from '../../test/app.ts';
import { viewTickets } from '../field-data/tickets.ts';
import { readConfig } from '../config.ts';
import { valueOf, valuesOf } from '../../test/scrape.ts';

let db: Db;
let app: FastifyInstance;

async function start(settings: Parameters<typeof testApi>[1] = {}) {
  ({ db } = await sqliteDatabase());
  ({ app } = await testApi(db, { knownVersion: (remote, version) => version === 'v1', ...settings }));
}

afterEach(async () => {
  await app?.close();
  await db?.destroy();
});

const scrape = async (headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress });

const report = {
  route: '/vendor',
  remote: 'vendor',
  version: 'v1',
  shell: 'Bx12_abc',
  viewport: 'phone',
  view: true,
  entries: [{ metric: 'LCP', value: 1830.2 }],
};

describe('GET /metrics on the API', () => {
  it('counts deletion requests by outcome and shows the mail waiting, in the Prometheus text format', async () => {
    await start();
    expect((await postTo(app, '/api/delete-account', validBody)).statusCode).toBe(202);
    expect((await postTo(app, '/api/delete-account', { ...validBody, email: 'not an address' })).statusCode).toBe(400);
    expect((await postTo(app, '/api/delete-account', '{"name":', {})).statusCode).toBe(400);
    const response = await scrape();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.body;
    const counted = {
      'api_deletion_requests_received_total{via="json"}': 3,
      'api_deletion_requests_total{outcome="accepted"}': 1,
      'api_deletion_requests_total{outcome="invalid"}': 2,
      'api_queue_waiting_messages{queue="mail"}': 1,
      'api_queue_dead_messages{queue="mail"}': 0,
      'http_requests_total{route="/api/delete-account",remote="api",method="POST",code="202"}': 1,
    };
    expect(valuesOf(text, Object.keys(counted))).toEqual(counted);
    expect(valueOf(text, 'api_queue_oldest_age_seconds{queue="mail"}')).toBeGreaterThanOrEqual(0);
    // The latency histogram: cumulative buckets, the slowest one (+Inf) holding every request.
    const post = 'route="/api/delete-account",remote="api",method="POST",code="400"';
    expect(valueOf(text, `http_request_duration_seconds_count{${post}}`)).toBe(2);
    expect(valueOf(text, `http_request_duration_seconds_bucket{le="+Inf",${post}}`)).toBe(2);
    expect(valueOf(text, `http_request_duration_seconds_bucket{le="10",${post}}`)).toBe(2);
    expect(valueOf(text, `http_request_duration_seconds_sum{${post}}`)).toBeGreaterThan(0);
    expect(valueOf(text, 'api_database_up')).toBe(1);
    // The process's own families, from prom-client's defaults.
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('leaves health checks and scrapes out of the requests, and says the database is down when it is', async () => {
    await start({ databaseReady: () => false });
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(503);
    await app.inject({ method: 'GET', url: '/api/health/live' });
    await scrape();
    const text = (await scrape()).body;
    expect(text).not.toMatch(/http_requests_total\{route="[^"]*(health|metrics)/);
    expect(valueOf(text, 'api_database_up')).toBe(0);
  });

  it('labels a request by its route pattern, never its address (a share link carries a token)', async () => {
    await start();
    await app.inject({ method: 'GET', url: '/api/share-location/secret-token-123/anything' });
    await app.inject({ method: 'GET', url: '/api/no/such/route?token=abc' });
    const text = (await scrape()).body;
    expect(text).not.toContain('secret-token-123');
    expect(text).not.toContain('abc');
    expect(text).toContain('route="unmatched",remote="api",method="GET",code="404"');
  });

  it('counts field data received, refused by reason, and the views counted per remote and version', async () => {
    await start();
    expect((await postTo(app, '/api/rum', report)).statusCode).toBe(204);
    expect((await postTo(app, '/api/rum', { ...report, version: 'v9' })).statusCode).toBe(400);
    expect((await postTo(app, '/api/rum', { ...report, route: '/nowhere' })).statusCode).toBe(400);
    expect((await postTo(app, '/api/rum', { ...report, entries: 'many' })).statusCode).toBe(400);
    const text = (await scrape()).body;
    expect(valueOf(text, 'api_field_data_received_total')).toBe(4);
    expect(valueOf(text, 'api_field_data_refused_total{reason="version"}')).toBe(1);
    expect(valueOf(text, 'api_field_data_refused_total{reason="route"}')).toBe(1);
    expect(valueOf(text, 'api_field_data_refused_total{reason="invalid"}')).toBe(1);
    expect(valueOf(text, 'api_field_data_max_bytes')).toBe(1024 * 1024 * 1024);
    // Without a view ticket the report is stored but no view is counted.
    expect(text).not.toContain('api_field_data_views_total{');
  });

  it('counts a view once however often its ticket is brought back', async () => {
    await start();
    const ticket = viewTickets(readConfig({}).cookieSecrets).issue({
      remote: 'vendor',
      version: 'v1',
      route: '/vendor',
    });
    for (let i = 0; i < 5; i++) {
      expect((await postTo(app, '/api/rum', { ...report, ticket: ticket.value })).statusCode).toBe(204);
    }
    expect(valueOf((await scrape()).body, 'api_field_data_views_total{remote="vendor",version="v1"}')).toBe(1);
  });

  it('is for this machine or the bearer of METRICS_TOKEN: anyone else, or a request a proxy forwarded, gets 404', async () => {
    await start({ metrics: { enabled: true, token: 'a-metrics-token-for-prometheus' } });
    expect((await scrape({}, '203.0.113.9')).statusCode).toBe(404);
    expect((await scrape({ 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(404);
    expect((await scrape({ forwarded: 'for=203.0.113.9' })).statusCode).toBe(404);
    expect((await scrape({ 'x-real-ip': '203.0.113.9' })).statusCode).toBe(404);
    expect((await scrape({ authorization: 'Bearer wrong' }, '203.0.113.9')).statusCode).toBe(404);
    const withToken = await scrape({ authorization: 'Bearer a-metrics-token-for-prometheus' }, '203.0.113.9');
    expect(withToken.statusCode).toBe(200);
    expect(withToken.body).toContain('api_deletion_requests_total');
  });

  it('is not there with METRICS=off', async () => {
    await start({ metrics: { enabled: false, token: undefined } });
    expect((await scrape()).statusCode).toBe(404);
    expect((await postTo(app, '/api/delete-account', validBody)).statusCode).toBe(202);
  });
});
