import type { FastifyBaseLogger } from 'fastify';
import type { ApiConfig } from '../config.ts';
import { holderOf, releaseClaimsOfGone, takeLease } from '../db/claims.ts';
import { faultReason, isDatabaseAway, outageLog, sawDatabaseFault } from '../db/faults.ts';
import type { Db } from '../db/database.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { fieldData } from '../field-data/repository.ts';
import { experimentDays } from '../field-data/experiment-days.ts';
import { locationShares } from '../location-shares/repository.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import { deliverDueWebhooks } from '../webhooks/delivery.ts';
import { createTransport, deliverDueEmails } from './outbox.ts';

const purgeEveryMs = 3_600_000;

/**
 * Sends queued emails and webhook events in the background, so that sending never delays or fails a 202 or a
 * change, and once an hour purges
 * unconfirmed requests and shared locations past their retention. `kick` sends at once after a new request is queued.
 */
export function startOutboxWorker(
  db: Db,
  config: ApiConfig,
  log: FastifyBaseLogger,
  databaseReady: () => boolean = () => true,
  metrics?: ApiMetrics,
) {
  const transport = createTransport(config);
  let running: Promise<void> | undefined;
  let stopped = false;
  // Which process holds the purge's lease and the queues' claims, in the tables every instance reads: the instance's
  // name and this process's boot id, so that a restarted instance knows its earlier claims (and takes them back at
  // once, the process that held them being gone) and a second process of the same name never takes the first's.
  const instance = holderOf(config.instanceName);
  let ownClaimsReleased = false;

  // What fails now, said once at warn when it starts and once when it ends, not at every run: the database, sending
  // mail, delivering webhook events.
  const outage = outageLog(log);
  // The database is asked again at every run; a message or event that failed waits its own time (retryDelayMs).
  const failed = (what: string, reason: string) =>
    outage.failed(
      what,
      reason,
      what === 'the outbox (its database)'
        ? `tried again every ${config.outboxIntervalMs / 1000} s`
        : 'each one tried again 30 s after it failed, then twice as long each time, at most an hour apart',
    );
  const works = outage.works;
  const notRecorded = (what: string, ids: number[]) => {
    if (ids.length)
      log.error({ ids }, `${what} sent, but marking them so failed: they may be sent again (with the same id)`);
  };

  const run = () => {
    if (stopped || running || !databaseReady()) return;
    running = (async () => {
      try {
        if (!ownClaimsReleased) {
          const released = await releaseClaimsOfGone(db, config.instanceName);
          ownClaimsReleased = true;
          if (released) log.warn({ released, instance }, 'took back what this instance claimed before it restarted');
        }
        const mail = await deliverDueEmails(db, transport, config.mailFrom, new Date(), config.outboxLeaseMs, instance);
        works('the outbox (its database)');
        const { due, sent, lastError } = mail;
        metrics?.queueAttemptsFailed('mail', due - sent - mail.notRecorded.length);
        if (due) log.info({ due, sent, transport: transport.describe }, 'outbox delivered');
        if (sent) works('sending mail');
        else if (lastError) failed('sending mail', lastError);
        notRecorded('emails', mail.notRecorded);
        if (config.webhookUrl) {
          const target = { url: config.webhookUrl, secrets: config.webhookSecrets, timeoutMs: config.webhookTimeoutMs };
          const events = await deliverDueWebhooks(db, target, new Date(), instance);
          metrics?.queueAttemptsFailed('webhooks', events.due - events.delivered - events.notRecorded.length);
          if (events.due) log.info({ due: events.due, delivered: events.delivered }, 'webhook events delivered');
          if (events.delivered) works('delivering webhook events');
          else if (events.lastError) failed('delivering webhook events', events.lastError);
          notRecorded('webhook events', events.notRecorded);
        }
        // Once an hour across all instances: whichever takes the lease when it has lapsed.
        if (await takeLease(db, 'hourly-purge', instance, new Date(), purgeEveryMs)) {
          const purged = await deletionRequests(db).purgeUnverified(config.unverifiedPurgeDays);
          if (purged) log.info({ purged }, 'unconfirmed deletion requests purged');
          const expired = await locationShares(db).purgeOlderThan(config.locationRetentionDays);
          if (expired) log.info({ expired }, 'shared locations past their retention deleted');
          const field = await fieldData(db).rollUpAndPurge();
          if (field.raw || field.hours) log.info(field, 'field data past its retention deleted');
          // Before the raw reports of the day before yesterday go: an experiment's days, a row per network a day.
          await experimentDays(db, undefined, config.releaseWatch.maxPerNetwork).rollUpRecentDays();
        }
      } catch (error) {
        if (isDatabaseAway(error as Error)) {
          sawDatabaseFault(error as Error);
          failed('the outbox (its database)', faultReason(error as Error));
        } else log.error({ err: error }, 'outbox run failed; it will try again');
      } finally {
        running = undefined;
      }
    })();
  };

  const timer = setInterval(run, config.outboxIntervalMs);
  timer.unref();
  run();
  return {
    kick: () => setImmediate(run),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
