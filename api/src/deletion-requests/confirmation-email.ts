/**
 * The one email a new deletion request sends. Its address has not proved itself yet, so the email carries nothing
 * the requester typed (no name, no reason): nobody can use the form to send words of their choosing to a stranger.
 */
export function confirmationEmail({ reference, link, ttlMs }: { reference: string; link: string; ttlMs: number }) {
  const hours = Math.round(ttlMs / 3_600_000);
  return {
    subject: `Confirm your account deletion request (${reference})`,
    text: `Hello,

We received a request to delete the account for this email address (reference ${reference}).

To confirm it, open this link and press the button on the page:

${link}

The link works once and for ${hours} hours. Nothing is deleted until you confirm.

If you did not ask for this, ignore this email: your account stays as it is, and the unconfirmed request is
removed automatically.
`,
  };
}
