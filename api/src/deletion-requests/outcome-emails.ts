/**
 * What the requester is told when an operator moves their request on (GDPR Art. 12(3), 12(4) and 19). No words the
 * requester typed; the operator's reason is theirs to write.
 */
import { paths, site } from '@gift/content';
import type { EmailContent } from '../mail/branded-email.tsx';
import { dateOf } from './confirmation-email.ts';

export function completedEmail({ reference, siteUrl }: { reference: string; siteUrl: string }): EmailContent {
  return {
    subject: `Your account has been deleted (${reference})`,
    paragraphs: [
      `As you asked, your ${site.brand} account and its data have been deleted.`,
      'What we deleted: your profile (name, email address, phone number, photo), your sign-in, the people, groups and occasions you saved, your addresses, wish lists and gift messages, and your settings.',
      'What we keep, and why: records of the orders you paid for and their invoices. Tax law requires us to keep them, for up to 10 years after the end of the year of the order; they are then deleted. They are kept apart and used for nothing else.',
    ],
    action: { label: 'Read our privacy policy', href: `${siteUrl}${paths.privacy}` },
    facts: [{ label: 'Reference', value: reference }],
    after: [
      `If you use ${site.brand} again you will need a new account. If you have a question about this, reply to this email.`,
    ],
  };
}

export function rejectedEmail({
  reference,
  reason,
  siteUrl,
}: {
  reference: string;
  reason: string;
  siteUrl: string;
}): EmailContent {
  return {
    subject: `We could not act on your account deletion request (${reference})`,
    paragraphs: [
      `We could not act on your request to delete your ${site.brand} account.`,
      `Why: ${reason}`,
      'Your account stays as it is. You may send a new request at any time.',
    ],
    action: { label: 'Send a new request', href: `${siteUrl}${paths.deleteAccount}` },
    facts: [{ label: 'Reference', value: reference }],
    after: [
      'If you disagree, you may complain to a data-protection supervisory authority, for example in the country where you live or work, and you may seek a remedy before a court.',
    ],
  };
}

export function extendedEmail({
  reference,
  months,
  reason,
  deadline,
  siteUrl,
}: {
  reference: string;
  months: number;
  reason: string;
  deadline: Date;
  siteUrl: string;
}): EmailContent {
  return {
    subject: `We need more time for your account deletion request (${reference})`,
    paragraphs: [
      `We are working on your request to delete your ${site.brand} account, and we need ${
        months === 1 ? 'one more month' : 'two more months'
      } to complete it.`,
      `Why: ${reason}`,
      `We will have answered by ${dateOf(deadline)} at the latest.`,
    ],
    action: { label: 'Read our privacy policy', href: `${siteUrl}${paths.privacy}` },
    facts: [
      { label: 'Reference', value: reference },
      { label: 'Answer by', value: dateOf(deadline) },
    ],
    after: [],
  };
}
