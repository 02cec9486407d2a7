import { confirmationEmail } from '../deletion-requests/confirmation-email.ts';
import { completedEmail, extendedEmail, rejectedEmail } from '../deletion-requests/outcome-emails.ts';
import type { EmailContent } from './branded-email.tsx';

const siteUrl = 'https://giftwell.example';
const reference = 'DEL-7K2M-9QXA';

/** Each email the service sends, filled with fixed sample values: for previews and the screenshot suite. */
export const emailSamples: Record<string, EmailContent> = {
  confirmation: confirmationEmail({
    reference,
    link: `${siteUrl}/delete-account/confirm#token=${'x'.repeat(43)}`,
    expiresAt: new Date('2026-11-26T16:05:00Z'),
  }),
  completed: completedEmail({ reference, siteUrl }),
  rejected: rejectedEmail({ reference, reason: 'We could not find an account for this email address.', siteUrl }),
  extended: extendedEmail({
    reference,
    months: 2,
    reason: 'A large export of your order history is still running.',
    deadline: new Date('2027-02-25T00:00:00Z'),
    siteUrl,
  }),
};
