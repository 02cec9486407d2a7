import { describe, expect, it } from 'vitest';
import { devPorts } from './dev-ports.ts';

describe('the ports pnpm dev uses', () => {
  it('moves every port by DEV_PORT_OFFSET, and the API and the mail catcher by their own settings', () => {
    expect(devPorts({})).toMatchObject({ site: 5173, api: 3001, smtp: 1025, mail: 1080 });
    expect(devPorts({ DEV_PORT_OFFSET: '100' })).toMatchObject({ site: 5273, api: 3101, smtp: 1125, mail: 1180 });
    // Another mail catcher holds 1025 and 1080: MailDev's ports apart, the rest where they were.
    expect(devPorts({ MAIL_SMTP_PORT: '2525', MAIL_WEB_PORT: '8025' })).toMatchObject({
      site: 5173,
      api: 3001,
      smtp: 2525,
      mail: 8025,
    });
  });

  it('refuses a port that is not one, naming the setting', () => {
    expect(() => devPorts({ MAIL_WEB_PORT: 'eighty' })).toThrow(
      'MAIL_WEB_PORT must be a port from 1 to 65535, got "eighty"',
    );
    expect(() => devPorts({ DEV_PORT_OFFSET: '-1' })).toThrow('DEV_PORT_OFFSET must be a whole number');
  });
});
