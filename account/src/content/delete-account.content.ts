import { site } from '@gift/content';

export const deleteAccount = {
  title: 'Delete Your Account',
  intro: "We're sorry to see you go. Please provide your email and a reason for deleting your account.",
  fields: {
    name: 'Full Name',
    email: 'Email Address',
    reason: 'Reason for Deleting',
  },
  submit: 'Submit Request',
  emailNote: 'We will email you a link to confirm the request.',
  messages: {
    missingFields: 'Please fill in all fields.',
    failed: 'Something went wrong. Please try again later.',
    networkError: 'Server error. Please try again later.',
    submitted: 'Your account deletion request has been submitted.',
  },
  whatHappensNext: {
    title: 'What happens next',
    items: [
      'We email you a link to confirm that the request comes from you. Nothing happens until you open it and confirm.',
      'Within 30 days we delete your account, profile, relations, groups, occasions, gift preferences and saved addresses.',
      'We keep order and payment records only as long as tax and accounting law requires, and then delete them.',
      'Messages you sent to other people stay with them; your name is removed from them where we can.',
    ],
    contact: `Questions? Write to ${site.supportEmail}.`,
  },
};

export const confirmDeletion = {
  title: 'Confirm your deletion request',
  intro:
    'Someone asked us to delete the account that belongs to your email address. Nothing is deleted until you confirm on this page that the request came from you; if it did not, you can simply close it.',
  checking: 'Checking your link…',
  needsScript: `Confirming needs JavaScript: the secret part of your link stays in your browser and is never sent to our server with the page. Turn JavaScript on and open the link again, or write to ${site.supportEmail} from the address of your account.`,
  summary: (email: string, date: string, reference: string) =>
    `You asked on ${date} to delete the account for ${email} (reference ${reference}).`,
  notYou:
    'If you did not ask for this, close this page: nothing will happen, and the request is removed automatically.',
  confirm: 'Confirm deletion request',
  confirmed: {
    title: 'Your request is confirmed',
    body: 'We will delete your account and its personal data within 30 days.',
  },
  problems: {
    unknown: 'This link is not valid. Make sure you opened the whole link from the email, or send a new request.',
    expired: 'This link has expired. Please send a new request; we will email you a fresh link.',
    used: 'This link has already been used. If you confirmed your request, there is nothing more to do.',
    network: 'We could not reach our server. Check your connection and try again.',
  },
  newRequest: 'Send a new request',
  retry: 'Try again',
};
