import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { FormOutcome, ShareLocationOutcome } from '@gift/content';
import { useActionData } from '@gift/router';
import { Button, buttonClassName, ExternalLink, Spinner, useHydrated } from '@gift/ui';
import { apiPaths } from '@gift/contracts';
import { shareLocation as copy } from '../content/share-location.content.ts';
import { useLocationShare, type Position, type SharedLocation } from './use-location-share.ts';
import styles from './share-location.module.css';

const mapsUrl = ({ latitude, longitude }: Position) =>
  `https://www.google.com/maps/search/?api=1&query=${latitude.toFixed(6)},${longitude.toFixed(6)}`;

interface AddressFormProps {
  token: string;
  onSubmit: (address: string) => void;
  onUseLocation?: () => void;
  /** What a native post of this form came back with: the address as typed, and why it was not saved. */
  returned?: { address: string; error: string };
}

/**
 * The address, typed. It posts natively (the token in a hidden field) before the page's scripts run or without
 * them, and the API answers on this page; once hydrated it checks the address here and sends it with `fetch`.
 */
function AddressForm({ token, onSubmit, onUseLocation, returned }: AddressFormProps) {
  const [error, setError] = useState(returned?.error ?? '');
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const address = String(new FormData(event.currentTarget).get('address') ?? '').trim();
    if (address.length < 5) {
      setError(copy.problems.addressTooShort);
      return;
    }
    onSubmit(address);
  };
  return (
    <form method="post" action={apiPaths.shareLocation} onSubmit={submit} noValidate>
      <input type="hidden" name="token" value={token} />
      <div className={styles.field}>
        <label htmlFor={`${id}-address`}>{copy.addressLabel}</label>
        <textarea
          id={`${id}-address`}
          name="address"
          rows={3}
          autoComplete="street-address"
          defaultValue={returned?.address}
          aria-describedby={`${id}-hint ${id}-error`}
          aria-invalid={error ? true : undefined}
        />
        <span id={`${id}-hint`} className={styles.hint}>
          {copy.addressHint}
        </span>
        <span id={`${id}-error`} role="alert" className={styles.error}>
          {error}
        </span>
      </div>
      <div className={styles.actions}>
        <Button type="submit">{copy.actions.confirmAddress}</Button>
        {onUseLocation && (
          <Button type="button" variant="secondary" onClick={onUseLocation}>
            {copy.actions.useLocation}
          </Button>
        )}
      </div>
    </form>
  );
}

/** Why a natively posted address was not saved, in the page's words. */
function returnedAddress(outcome: ShareLocationOutcome | undefined) {
  if (!outcome || outcome.outcome === 'shared') return undefined;
  return { address: outcome.address, error: outcome.message ?? copy.problems.notSaved };
}

function describe(location: SharedLocation) {
  return 'address' in location
    ? location.address
    : `${location.position.latitude.toFixed(5)}, ${location.position.longitude.toFixed(5)}`;
}

/** Every state of the share: start, locating, found, address, sending, shared, and each problem. */
export function ShareLocationFlow({ token }: { token: string }) {
  const actionData = useActionData<FormOutcome>();
  const outcome = actionData?.form === 'share-location' ? actionData : undefined;
  const returned = returnedAddress(outcome);
  const { state, locate, send, typeAddress, restart } = useLocationShare(
    token,
    outcome?.outcome === 'shared' ? { step: 'shared', location: { address: outcome.address } } : undefined,
  );
  const hydrated = useHydrated();
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Each new step is announced by moving focus to its heading.
  useEffect(() => {
    if (state.step !== 'start') headingRef.current?.focus();
  }, [state.step]);

  const heading = (text: string) => (
    <h2 ref={headingRef} tabIndex={-1}>
      {text}
    </h2>
  );

  switch (state.step) {
    case 'start':
      return (
        <>
          <div className={styles.actions}>
            {/* The device's position needs the page's scripts; until they run, the page says so. */}
            <Button type="button" onClick={locate} disabled={!hydrated}>
              {copy.actions.locate}
            </Button>
          </div>
          {/* The visitor may have opened it before hydration: the browser's open state is the truth. */}
          <details className={styles.disclosure} open={Boolean(returned)} suppressHydrationWarning>
            <summary className={buttonClassName('secondary')}>{copy.actions.typeAddress}</summary>
            <AddressForm token={token} returned={returned} onSubmit={(address) => send({ address })} />
          </details>
          {/* Last, so that nothing a visitor may be pressing moves when it goes away at hydration. */}
          {!hydrated && <p className={styles.hint}>{copy.positionNeedsScripts}</p>}
        </>
      );
    case 'locating':
      return (
        <div className={styles.panel} role="status">
          {heading(copy.locating)}
          <Spinner size="small" />
        </div>
      );
    case 'found':
      return (
        <div className={styles.panel}>
          {heading(copy.found(state.position.accuracy))}
          <p className={styles.coordinates}>{describe({ position: state.position })}</p>
          <ExternalLink href={mapsUrl(state.position)}>{copy.actions.openMaps}</ExternalLink>
          <div className={styles.actions}>
            <Button type="button" onClick={() => send({ position: state.position })}>
              {copy.actions.confirm}
            </Button>
            <Button type="button" variant="secondary" onClick={locate}>
              {copy.actions.retry}
            </Button>
            <Button type="button" variant="secondary" onClick={typeAddress}>
              {copy.actions.typeAddress}
            </Button>
          </div>
        </div>
      );
    case 'address':
      return (
        <div className={styles.panel}>
          {heading(copy.actions.typeAddress)}
          <AddressForm token={token} onSubmit={(address) => send({ address })} onUseLocation={locate} />
        </div>
      );
    case 'sending':
      return (
        <div className={styles.panel} role="status">
          {heading(copy.sending)}
          <p>{describe(state.location)}</p>
          <Button type="button" disabled>
            <Spinner size="small" />
            {copy.sending}
          </Button>
        </div>
      );
    case 'shared':
      return (
        <div className={styles.panel}>
          {heading(copy.shared.title)}
          <p>{'address' in state.location ? copy.shared.address : copy.shared.position}</p>
          <p className={styles.coordinates}>{describe(state.location)}</p>
          <div className={styles.actions}>
            <Button type="button" variant="secondary" onClick={restart}>
              {copy.actions.change}
            </Button>
          </div>
        </div>
      );
    case 'problem': {
      const { problem, location } = state;
      const canLocate = problem !== 'unsupported';
      return (
        <div className={styles.panel}>
          {heading(location ? copy.problemTitles.saving : copy.problemTitles.locating)}
          <p className={styles.problem} role="alert">
            {copy.problems[problem]}
          </p>
          <div className={styles.actions}>
            {location && problem === 'unreachable' && (
              <Button type="button" onClick={() => send(location)}>
                {copy.actions.retry}
              </Button>
            )}
            {!location && canLocate && (
              <Button type="button" onClick={locate}>
                {copy.actions.retry}
              </Button>
            )}
            <Button type="button" variant="secondary" onClick={typeAddress}>
              {copy.actions.typeAddress}
            </Button>
          </div>
        </div>
      );
    }
  }
}
