import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { shareLocation as copy } from '../content/share-location.content.ts';
import { useLocationShare, type Position, type SharedLocation } from './use-location-share.ts';
import styles from './share-location.module.css';

const mapsUrl = ({ latitude, longitude }: Position) =>
  `https://www.google.com/maps/search/?api=1&query=${latitude.toFixed(6)},${longitude.toFixed(6)}`;

function AddressForm({ onSubmit, onUseLocation }: { onSubmit: (address: string) => void; onUseLocation: () => void }) {
  const [address, setAddress] = useState('');
  const [error, setError] = useState('');
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (address.trim().length < 5) {
      setError(copy.problems.addressTooShort);
      return;
    }
    onSubmit(address.trim());
  };
  return (
    <form onSubmit={submit} noValidate>
      <div className={styles.field}>
        <label htmlFor={`${id}-address`}>{copy.addressLabel}</label>
        <textarea
          id={`${id}-address`}
          rows={3}
          autoComplete="street-address"
          value={address}
          aria-describedby={`${id}-hint ${id}-error`}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setAddress(event.target.value)}
        />
        <span id={`${id}-hint`} className={styles.hint}>
          {copy.addressHint}
        </span>
        <span id={`${id}-error`} role="alert" className={styles.hint}>
          {error}
        </span>
      </div>
      <div className={styles.actions}>
        <button type="submit" className={styles.primary}>
          {copy.actions.confirmAddress}
        </button>
        <button type="button" className={styles.secondary} onClick={onUseLocation}>
          {copy.actions.useLocation}
        </button>
      </div>
    </form>
  );
}

function describe(location: SharedLocation) {
  return 'address' in location
    ? location.address
    : `${location.position.latitude.toFixed(5)}, ${location.position.longitude.toFixed(5)}`;
}

/** Every state of the share: start, locating, found, address, sending, shared, and each problem. */
export function ShareLocationFlow({ token }: { token: string }) {
  const { state, locate, send, typeAddress, restart } = useLocationShare(token);
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
        <div className={styles.actions}>
          <button type="button" className={styles.primary} onClick={locate}>
            {copy.actions.locate}
          </button>
          <button type="button" className={styles.secondary} onClick={typeAddress}>
            {copy.actions.typeAddress}
          </button>
        </div>
      );
    case 'locating':
      return (
        <div className={styles.panel} role="status">
          {heading(copy.locating)}
          <span className={styles.spinner} aria-hidden="true" />
        </div>
      );
    case 'found':
      return (
        <div className={styles.panel}>
          {heading(copy.found(state.position.accuracy))}
          <p className={styles.coordinates}>{describe({ position: state.position })}</p>
          <a href={mapsUrl(state.position)} target="_blank" rel="noopener noreferrer">
            {copy.actions.openMaps}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          <div className={styles.actions}>
            <button type="button" className={styles.primary} onClick={() => send({ position: state.position })}>
              {copy.actions.confirm}
            </button>
            <button type="button" className={styles.secondary} onClick={locate}>
              {copy.actions.retry}
            </button>
            <button type="button" className={styles.secondary} onClick={typeAddress}>
              {copy.actions.typeAddress}
            </button>
          </div>
        </div>
      );
    case 'address':
      return (
        <div className={styles.panel}>
          {heading(copy.actions.typeAddress)}
          <AddressForm onSubmit={(address) => send({ address })} onUseLocation={locate} />
        </div>
      );
    case 'sending':
      return (
        <div className={styles.panel} role="status">
          {heading(copy.sending)}
          <p>{describe(state.location)}</p>
          <button type="button" className={styles.primary} disabled>
            <span className={styles.spinner} aria-hidden="true" />
            {copy.sending}
          </button>
        </div>
      );
    case 'shared':
      return (
        <div className={styles.panel}>
          {heading(copy.shared.title)}
          <p>{'address' in state.location ? copy.shared.address : copy.shared.position}</p>
          <p className={styles.coordinates}>{describe(state.location)}</p>
          <div className={styles.actions}>
            <button type="button" className={styles.secondary} onClick={restart}>
              {copy.actions.change}
            </button>
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
              <button type="button" className={styles.primary} onClick={() => send(location)}>
                {copy.actions.retry}
              </button>
            )}
            {!location && canLocate && (
              <button type="button" className={styles.primary} onClick={locate}>
                {copy.actions.retry}
              </button>
            )}
            <button type="button" className={styles.secondary} onClick={typeAddress}>
              {copy.actions.typeAddress}
            </button>
          </div>
        </div>
      );
    }
  }
}
