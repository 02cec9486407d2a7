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
  messages: {
    missingFields: 'Please fill in all fields.',
    failed: 'Something went wrong. Please try again later.',
    networkError: 'Server error. Please try again later.',
    submitted: 'Your account deletion request has been submitted.',
  },
  whatHappensNext: {
    title: 'What happens next',
    items: [
      'We review your request and may write to this email address to make sure the request comes from you.',
      'Within 30 days we delete your account, profile, relations, groups, occasions, gift preferences and saved addresses.',
      'We keep order and payment records only as long as tax and accounting law requires, and then delete them.',
      'Messages you sent to other people stay with them; your name is removed from them where we can.',
    ],
    contact: `Questions? Write to ${site.supportEmail}.`,
  },
};

export const deleteAccountEndpoint = '/api/delete-account';
