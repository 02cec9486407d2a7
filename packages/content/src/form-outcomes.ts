/**
 * What the server says about a form that was posted natively (before hydration or without JavaScript). The API
 * answers the post with a redirect to the form's page (Post/Redirect/Get) and keeps this, briefly, in a cookie;
 * the page server renders the page with it, and the page reads it with `useActionData()`.
 */
export type FormOutcome = DeletionFormOutcome | ShareLocationOutcome;

export interface DeletionFormValues {
  name: string;
  email: string;
  reason: string;
}

export type DeletionFormOutcome =
  | { form: 'delete-account'; outcome: 'submitted' }
  | {
      form: 'delete-account';
      /** Email or reason empty; the request could not be stored; the API refused it for another reason. */
      outcome: 'missing-fields' | 'failed' | 'refused';
      /** The API's own words, for a refusal. */
      message?: string;
      /** What the visitor typed, given back so that nothing is lost. */
      values: DeletionFormValues;
    };

export type ShareLocationOutcome =
  | { form: 'share-location'; outcome: 'shared'; address: string }
  | { form: 'share-location'; outcome: 'refused' | 'failed'; message?: string; address: string };

/**
 * What a form says when the server could not store it just now (its database away: 503), with or without JavaScript:
 * nothing was kept, and the same request shortly after will do.
 */
export const tryAgainShortly = 'We couldn’t save this just now: nothing was kept. Please try again in a moment.';
