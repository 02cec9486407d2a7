/**
 * The ports `pnpm dev` uses, where the API's dev start and the shell's dev server must agree: the site (the shell's dev
 * server) at 5173, the API at 3001 (API_PORT when set; the shell's dev proxy follows it), MailDev's SMTP at 1025 and
 * its web page at 1080 (MAIL_SMTP_PORT and MAIL_WEB_PORT when set), each moved by DEV_PORT_OFFSET (0) so that two checkouts run side by side
 * (`DEV_PORT_OFFSET=100 pnpm dev`: the site at 5273, the API at 3101). The remotes' dev servers are
 * @gift/federation's `devPorts`, moved alike. Read where Node runs.
 */
export function devPorts(env: Record<string, string | undefined>) {
  const text = env.DEV_PORT_OFFSET ?? '';
  const offset = text === '' ? 0 : Number(text);
  if (!Number.isInteger(offset) || offset < 0 || offset > 50_000) {
    throw new Error(`DEV_PORT_OFFSET must be a whole number from 0 to 50000, got "${text}"`);
  }
  return {
    offset,
    site: 5173 + offset,
    api: portOf(env, 'API_PORT') ?? 3001 + offset,
    smtp: portOf(env, 'MAIL_SMTP_PORT') ?? 1025 + offset,
    mail: portOf(env, 'MAIL_WEB_PORT') ?? 1080 + offset,
  };
}

/**
 * A port set on its own (API_PORT; MAIL_SMTP_PORT and MAIL_WEB_PORT move MailDev's apart from the offset, where
 * another mail catcher holds 1025 or 1080), or undefined when not set.
 */
function portOf(env: Record<string, string | undefined>, name: string) {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${name} must be a port from 1 to 65535, got "${text}"`);
  }
  return port;
}
