import { useId, useState, type FormEvent } from 'react';
import { tryAgainShortly, type DeletionFormOutcome, type DeletionFormValues, type FormOutcome } from '@gift/content';
import { useActionData } from '@gift/router';
import { apiPaths } from '@gift/contracts';
import { Button } from '@gift/ui';
import { deletionApi } from '@gift/contracts/clients';
import { deleteAccount } from '../content/delete-account.content.ts';
import styles from './deletion-request-form.module.css';

type Status = { tone: 'none' | 'error' | 'success'; message: string };

const { fields: labels, messages } = deleteAccount;
const noStatus: Status = { tone: 'none', message: '' };
const fieldNames = ['name', 'email', 'reason'] as const;

/** What the page says after the form was posted natively and the server answered on this page. */
function statusAfter(outcome: DeletionFormOutcome | undefined): Status {
  switch (outcome?.outcome) {
    case undefined:
      return noStatus;
    case 'submitted':
      return { tone: 'success', message: messages.submitted };
    case 'missing-fields':
      return { tone: 'error', message: messages.missingFields };
    case 'failed':
      return { tone: 'error', message: messages.failed };
    case 'refused':
      return { tone: 'error', message: outcome.message ?? messages.failed };
  }
}

const fieldsOf = (form: HTMLFormElement): DeletionFormValues => {
  const data = new FormData(form);
  const [name, email, reason] = fieldNames.map((field) => String(data.get(field) ?? ''));
  return { name: name!, email: email!, reason: reason! };
};

/**
 * What the fields hold when the page's scripts first render the form: what a native post gave back, and what the
 * visitor typed since, read from the page itself. Hydration resets a textarea to its default value, and a fresh
 * render in the browser replaces the fields; with these as defaults, neither loses a keystroke.
 */
function useFieldsAsShown(returned: DeletionFormValues | undefined): DeletionFormValues | undefined {
  const [shown] = useState(() => {
    const form =
      typeof document === 'undefined'
        ? null
        : document.querySelector<HTMLFormElement>(`form[action="${apiPaths.deleteAccount}"]`);
    return form ? fieldsOf(form) : returned;
  });
  return shown;
}

/**
 * Spec section 4: empty, failed check, success (fields cleared), server or network failure (fields kept). The
 * product's own check asks for the email and the reason ("Please fill in all fields."); the name is marked required
 * for the browser alone, as spec section 5 says (issue 89), so the browser asks for it before the form is sent.
 * The form works before the page's scripts run and without them: its fields are uncontrolled, so what is typed
 * before hydration stays, and it posts natively to the API, which answers on this page (see `useActionData`).
 * Once hydrated, it sends JSON with `fetch` and answers inline, as the spec says.
 */
export function DeletionRequestForm() {
  const actionData = useActionData<FormOutcome>();
  const outcome = actionData?.form === 'delete-account' ? actionData : undefined;
  const typed = useFieldsAsShown(outcome && 'values' in outcome ? outcome.values : undefined);
  const [status, setStatus] = useState(() => statusAfter(outcome));
  const [sending, setSending] = useState(false);
  const id = useId();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (sending) return;
    const form = event.currentTarget;
    const fields = fieldsOf(form);
    if (!fields.email.trim() || !fields.reason.trim()) {
      setStatus({ tone: 'error', message: messages.missingFields });
      return;
    }
    setSending(true);
    setStatus(noStatus);
    try {
      const answer = await deletionApi.request(fields);
      if (answer.ok) {
        // Emptied, not reset: a reset would bring back what a native post gave back.
        for (const name of fieldNames) (form.elements.namedItem(name) as HTMLInputElement).value = '';
        setStatus({ tone: 'success', message: messages.submitted });
      } else {
        // 503: the server could not store it just now (its database away); anything else, the spec's message.
        setStatus({ tone: 'error', message: answer.status === 503 ? tryAgainShortly : messages.failed });
      }
    } catch (error) {
      console.error('The account deletion request could not be sent.', error);
      setStatus({ tone: 'error', message: messages.networkError });
    } finally {
      setSending(false);
    }
  }

  return (
    <>
      <form
        className={styles.form}
        method="post"
        action={apiPaths.deleteAccount}
        onSubmit={submit}
        aria-describedby={`${id}-status`}
      >
        <div className={styles.field}>
          <label htmlFor={`${id}-name`}>{labels.name}</label>
          <input id={`${id}-name`} name="name" autoComplete="name" required defaultValue={typed?.name} />
        </div>
        <div className={styles.field}>
          <label htmlFor={`${id}-email`}>{labels.email}</label>
          <input id={`${id}-email`} name="email" type="email" autoComplete="email" defaultValue={typed?.email} />
        </div>
        <div className={styles.field}>
          <label htmlFor={`${id}-reason`}>{labels.reason}</label>
          <textarea id={`${id}-reason`} name="reason" rows={4} defaultValue={typed?.reason} />
        </div>
        <Button variant="danger" className={styles.submit} type="submit" disabled={sending} aria-busy={sending}>
          {deleteAccount.submit}
        </Button>
      </form>
      <p id={`${id}-status`} className={styles.status} data-tone={status.tone} role="status" aria-live="polite">
        {status.message}
      </p>
    </>
  );
}
