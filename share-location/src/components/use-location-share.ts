import { useCallback, useReducer } from 'react';
import { notify } from '@gift/store';
import { locationApi } from '@gift/contracts/clients';
import { geolocationOptions, shareLocation } from '../content/share-location.content.ts';

export type Position = { latitude: number; longitude: number; accuracy: number };
export type SharedLocation = { position: Position } | { address: string };
export type Problem = 'denied' | 'unavailable' | 'timeout' | 'unsupported' | 'refused' | 'unreachable';

export type ShareState =
  | { step: 'start' }
  | { step: 'locating' }
  | { step: 'found'; position: Position }
  | { step: 'address' }
  | { step: 'sending'; location: SharedLocation }
  | { step: 'shared'; location: SharedLocation }
  | { step: 'problem'; problem: Problem; location?: SharedLocation };

type Action =
  | { type: 'locate' }
  | { type: 'found'; position: Position }
  | { type: 'type-address' }
  | { type: 'send'; location: SharedLocation }
  | { type: 'sent'; location: SharedLocation }
  | { type: 'failed'; problem: Problem; location?: SharedLocation }
  | { type: 'restart' };

export function shareReducer(state: ShareState, action: Action): ShareState {
  switch (action.type) {
    case 'locate':
      return { step: 'locating' };
    case 'found':
      return { step: 'found', position: action.position };
    case 'type-address':
      return { step: 'address' };
    case 'send':
      return state.step === 'sending' ? state : { step: 'sending', location: action.location };
    case 'sent':
      return { step: 'shared', location: action.location };
    case 'failed':
      return { step: 'problem', problem: action.problem, location: action.location };
    case 'restart':
      return { step: 'start' };
  }
}

/** Maps a GeolocationPositionError code to what the visitor can do about it. */
export function problemOf(error: GeolocationPositionError): Problem {
  if (error.code === error.PERMISSION_DENIED) return 'denied';
  if (error.code === error.TIMEOUT) return 'timeout';
  return 'unavailable';
}

/**
 * The recipient's journey: locate (or type an address), check, confirm, and send it to the API. `initial` is where
 * a native post of the address form left it.
 */
export function useLocationShare(token: string, initial: ShareState = { step: 'start' }) {
  const [state, dispatch] = useReducer(shareReducer, initial);

  const locate = useCallback(() => {
    if (typeof navigator === 'undefined' || !('geolocation' in navigator)) {
      dispatch({ type: 'failed', problem: 'unsupported' });
      return;
    }
    dispatch({ type: 'locate' });
    navigator.geolocation.getCurrentPosition(
      ({ coords }) =>
        dispatch({
          type: 'found',
          position: { latitude: coords.latitude, longitude: coords.longitude, accuracy: coords.accuracy },
        }),
      (error) => dispatch({ type: 'failed', problem: problemOf(error) }),
      geolocationOptions,
    );
  }, []);

  const send = useCallback(
    async (location: SharedLocation) => {
      dispatch({ type: 'send', location });
      try {
        const answer = await locationApi.share({ token, ...location });
        dispatch(answer.ok ? { type: 'sent', location } : { type: 'failed', problem: 'refused', location });
        // The shell's notification outlet shows it: the store is one shared singleton across host and remotes.
        if (answer.ok) notify(shareLocation.toast, 'success');
      } catch (error) {
        console.error('The location could not be sent.', error);
        dispatch({ type: 'failed', problem: 'unreachable', location });
      }
    },
    [token],
  );

  return {
    state,
    locate,
    send,
    typeAddress: () => dispatch({ type: 'type-address' }),
    restart: () => dispatch({ type: 'restart' }),
  };
}
