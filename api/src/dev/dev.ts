/**
 * `pnpm dev`'s back end: the API on 127.0.0.1:3001 (the shell's dev server proxies `/api` to it; DEV_PORT_OFFSET moves
 * every dev port, API_PORT this one) on the same data as
 * `pnpm start` (SQLite under the workspace's `.data`), and MailDev catching every email it sends, listed on a web
 * page. MailDev is the common mail catcher for Node: SMTP in, a web page and a REST API out, from npm with nothing
 * to download, and in development only.
 */
import MailDev from 'maildev';
import { devPorts as devPortsOf } from '@gift/contracts/dev-ports';

const devPorts = devPortsOf(process.env);
/** The shell's dev server is the site in development (its port is the shell's `server.port`). */
const site = `http://localhost:${devPorts.site}`;

const maildev = new MailDev({
  smtp: devPorts.smtp,
  web: devPorts.mail,
  ip: '127.0.0.1',
  webIp: '127.0.0.1',
  silent: true,
});
await new Promise<void>((resolve, reject) => maildev.listen((error) => (error ? reject(error) : resolve())));
process.once('exit', () => maildev.close());

process.env.SMTP_URL ??= `smtp://127.0.0.1:${devPorts.smtp}`;
process.env.PUBLIC_SITE_URL ??= site;
process.env.API_PORT ??= String(devPorts.api);
// Errors and warnings only: every request of the dev site would otherwise print a line.
process.env.LOG_LEVEL ??= 'warn';
// Emails reach the mail page within a second of the submit.
process.env.OUTBOX_INTERVAL_MS ??= '500';
await import('../main.ts');

console.log(`
  Site  ${site}
  API   http://127.0.0.1:${process.env.API_PORT}/api/health
  Mail  http://127.0.0.1:${devPorts.mail}  (every email the site sends in development)
`);
