import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation } from '@gift/router';
import { paths } from '@gift/content';
import { Button, useHydrated } from '@gift/ui';
import { confirmationTokenPattern, type ConfirmationDetails } from '@gift/contracts';
import { deletionApi, type LinkCheck } from '@gift/contracts/clients';
import { confirmDeletion as copy } from '../content/delete-account.content.ts';
import styles from './delete-account-page.module.css';

type Problem = keyof typeof copy.problems;
type State =
  | { step: 'checking' }
  | { step: 'ready'; details: ConfirmationDetails }
  | { step: 'confirming'; details: ConfirmationDetails }
  | { step: 'confirmed' }
  | { step: 'problem'; problem: Problem; retry?: () => void };

const tokenPattern = new RegExp(confirmationTokenPattern);

/** A link's check as the page tells it: a problem the API names, or one of reaching it. */
const problemOf = (check: LinkCheck & { ok: false }): Problem => check.problem ?? 'network';

/**
 * The page the confirmation email links to. Opening it (a GET) only looks the link up; pressing the button
 * (a POST) confirms, so a mail scanner that opens links confirms nothing. The token travels in the
 * fragment, which browsers never send to a server or put in a Referer.
 */
export function ConfirmDeletionPage() {
  const { hash } = useLocation();
  const token = new URLSearchParams(hash.slice(1)).get('token') ?? '';
  // The server never sees the fragment: the page starts checking, and the token is judged once in the browser.
  const [checked, setState] = useState<State>({ step: 'checking' });
  const hydrated = useHydrated();
  const state: State = hydrated && !tokenPattern.test(token) ? { step: 'problem', problem: 'unknown' } : checked;

  const lookUp = useCallback(async () => {
    setState({ step: 'checking' });
    try {
      const result = await deletionApi.lookUp(token);
      setState(
        result.ok ? { step: 'ready', details: result.details } : { step: 'problem', problem: problemOf(result) },
      );
    } catch (error) {
      console.error('The confirmation link could not be checked.', error);
      setState({ step: 'problem', problem: 'network', retry: () => void lookUp() });
    }
  }, [token]);

  useEffect(() => {
    if (tokenPattern.test(token)) void lookUp();
  }, [token, lookUp]);

  async function confirm(details: ConfirmationDetails) {
    setState({ step: 'confirming', details });
    try {
      const result = await deletionApi.confirm(token);
      setState(result.ok ? { step: 'confirmed' } : { step: 'problem', problem: problemOf(result) });
    } catch (error) {
      console.error('The deletion request could not be confirmed.', error);
      setState({ step: 'problem', problem: 'network', retry: () => void confirm(details) });
    }
  }

  return (
    <div className={styles.page}>
      <h1>{state.step === 'confirmed' ? copy.confirmed.title : copy.title}</h1>
      {state.step !== 'confirmed' && <p className={styles.intro}>{copy.intro}</p>}
      <div className={styles.card} aria-live="polite">
        {state.step === 'checking' && <p role="status">{copy.checking}</p>}
        {/* The token is in the fragment, which only a script can read: without one, the page says what to do. */}
        <noscript>
          <p>{copy.needsScript}</p>
        </noscript>
        {(state.step === 'ready' || state.step === 'confirming') && (
          <>
            <p>
              {copy.summary(
                state.details.email,
                new Date(state.details.receivedAt).toLocaleDateString('en-GB', { dateStyle: 'long' }),
                state.details.reference,
              )}
            </p>
            <p>{copy.notYou}</p>
            <Button type="button" disabled={state.step === 'confirming'} onClick={() => void confirm(state.details)}>
              {copy.confirm}
            </Button>
          </>
        )}
        {state.step === 'confirmed' && <p role="status">{copy.confirmed.body}</p>}
        {state.step === 'problem' && (
          <>
            <p role="alert">{copy.problems[state.problem]}</p>
            {state.retry ? (
              <Button type="button" onClick={state.retry}>
                {copy.retry}
              </Button>
            ) : (
              state.problem !== 'used' && <Link to={paths.deleteAccount}>{copy.newRequest}</Link>
            )}
          </>
        )}
      </div>
    </div>
  );
}

export default ConfirmDeletionPage;
