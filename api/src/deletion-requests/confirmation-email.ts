import { site } from '@gift/content';
import type { EmailContent } from '../mail/branded-email.tsx';

// Made once: a formatter per call costs about a millisecond, which a stranger could time (see routes.test.ts).
const utcMoment = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

/** 25 November 2026, 16:05 UTC: a moment every reader can place, whatever their time zone. */
export const momentOf = (moment: Date) => `${utcMoment.format(moment)} UTC`.replace(' at ', ', ');

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
    preview: `Confirm that you want your ${site.brand} account deleted. Nothing is deleted until you do.`,
    heading: 'Confirm your deletion request',
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
