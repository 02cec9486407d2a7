import { site } from '@gift/content';
import type { EmailContent } from '../mail/branded-email.tsx';

const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const twoDigits = (value: number) => String(value).padStart(2, '0');

/** 26 November 2026: a date every reader can place, whatever their time zone (UTC). */
export const dateOf = (moment: Date) =>
  `${moment.getUTCDate()} ${months[moment.getUTCMonth()]} ${moment.getUTCFullYear()}`;

/** 26 November 2026, 16:05 UTC. */
export const momentOf = (moment: Date) =>
  `${dateOf(moment)}, ${twoDigits(moment.getUTCHours())}:${twoDigits(moment.getUTCMinutes())} UTC`;

/**
 * The one email a new deletion request sends. Its address has not proved itself yet, so the email carries nothing
 * the requester typed (no name, no reason): nobody can use the form to send words of their choosing to a stranger.
 */
export function confirmationEmail({
  reference,
  link,
  expiresAt,
}: {
  reference: string;
  link: string;
  expiresAt: Date;
}): EmailContent {
  return {
    subject: `Confirm your account deletion request (${reference})`,
    paragraphs: [
      `We received a request to delete the ${site.brand} account for this email address.`,
      'To confirm it, open this link and press the button on the page. Nothing is deleted until you confirm.',
    ],
    action: { label: 'Confirm the request', href: link },
    facts: [
      { label: 'Reference', value: reference },
      { label: 'The link works once, until', value: momentOf(expiresAt) },
    ],
    after: [
      'If you did not ask for this, ignore this email: your account stays as it is, and the unconfirmed request is removed automatically.',
    ],
  };
}
