import { useId, useState, type FormEvent } from 'react';
import { useHydrated } from '@gift/ui';
import { deleteAccount, deleteAccountEndpoint } from '../content/delete-account.content.ts';
import styles from './deletion-request-form.module.css';

type Status = { tone: 'none' | 'error' | 'success'; message: string };

const emptyFields = { name: '', email: '', reason: '' };
const { fields: labels, messages } = deleteAccount;

/** Spec section 4: empty, failed check, success (fields cleared), server or network failure (fields kept). */
export function DeletionRequestForm() {
  const [fields, setFields] = useState(emptyFields);
  const [status, setStatus] = useState<Status>({ tone: 'none', message: '' });
  const [sending, setSending] = useState(false);
  const id = useId();
  const hydrated = useHydrated();

  const update = (field: keyof typeof emptyFields) => (event: { target: { value: string } }) =>
    setFields((current) => ({ ...current, [field]: event.target.value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (sending) return;
    if (!fields.email.trim() || !fields.reason.trim()) {
      setStatus({ tone: 'error', message: messages.missingFields });
      return;
    }
    setSending(true);
    setStatus({ tone: 'none', message: '' });
    try {
      const response = await fetch(deleteAccountEndpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(fields),
      });
      if (response.ok) {
        setFields(emptyFields);
        setStatus({ tone: 'success', message: messages.submitted });
      } else {
        setStatus({ tone: 'error', message: messages.failed });
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
      <form className={styles.form} onSubmit={submit} aria-describedby={`${id}-status`}>
        <div className={styles.field}>
          <label htmlFor={`${id}-name`}>{labels.name}</label>
          <input
            id={`${id}-name`}
            name="name"
            autoComplete="name"
            required
            value={fields.name}
            onChange={update('name')}
          />
        </div>
        <div className={styles.field}>
          <label htmlFor={`${id}-email`}>{labels.email}</label>
          <input
            id={`${id}-email`}
            name="email"
            type="email"
            autoComplete="email"
            value={fields.email}
            onChange={update('email')}
          />
        </div>
        <div className={styles.field}>
          <label htmlFor={`${id}-reason`}>{labels.reason}</label>
          <textarea id={`${id}-reason`} name="reason" rows={4} value={fields.reason} onChange={update('reason')} />
        </div>
        <button className={styles.submit} type="submit" disabled={sending || !hydrated} aria-busy={sending}>
          {deleteAccount.submit}
        </button>
        <noscript>
          <p>{deleteAccount.needsScript}</p>
        </noscript>
      </form>
      <p id={`${id}-status`} className={styles.status} data-tone={status.tone} role="status" aria-live="polite">
        {status.message}
      </p>
    </>
  );
}
