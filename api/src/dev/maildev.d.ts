declare module 'maildev' {
  /** MailDev 2's Node API (https://github.com/maildev/maildev/blob/master/docs/api.md), the part used here. */
  export default class MailDev {
    constructor(options: { smtp?: number; web?: number; ip?: string; webIp?: string; silent?: boolean });
    listen(callback?: (error?: Error) => void): void;
    close(callback?: (error?: Error) => void): void;
  }
}
