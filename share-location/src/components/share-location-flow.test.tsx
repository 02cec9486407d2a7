import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderToString } from 'react-dom/server';
import { createMemoryRouter, Route, RouterProvider, Routes, StaticRouter } from '@gift/router/testing';
import type { ShareLocationOutcome } from '@gift/content';
import { ActionDataContext } from '@gift/router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShareLocationPage } from '../pages/share-location-page.tsx';

const token = 'gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7';
const fetchMock = vi.fn<typeof fetch>();

function geolocationAnswering(answer: (success: PositionCallback, failure: PositionErrorCallback) => void) {
  const getCurrentPosition = vi.fn(
    (success: PositionCallback, failure: PositionErrorCallback, _options?: PositionOptions) => answer(success, failure),
  );
  Object.defineProperty(navigator, 'geolocation', { value: { getCurrentPosition }, configurable: true });
  return getCurrentPosition;
}

const at = (latitude: number, longitude: number, accuracy: number) =>
  ({ coords: { latitude, longitude, accuracy } }) as GeolocationPosition;

const failure = (code: 1 | 2 | 3) =>
  ({ code, PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3, message: '' }) as GeolocationPositionError;

function renderAt(path: string, returned?: ShareLocationOutcome) {
  const router = createMemoryRouter([{ path: '/share-location/*', element: <ShareLocationPage /> }], {
    initialEntries: [path],
  });
  render(
    <ActionDataContext value={returned}>
      <RouterProvider router={router} />
    </ActionDataContext>,
  );
}

const press = (name: string | RegExp) => userEvent.click(screen.getByRole('button', { name }));

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'geolocation');
});

describe('ShareLocationPage', () => {
  it.each(['/share-location', '/share-location/', '/share-location/short', '/share-location/bad token with spaces!'])(
    'explains a link with no or a malformed token (%s) and offers nothing to send',
    (path) => {
      renderAt(path);
      expect(screen.getByRole('alert')).toHaveTextContent('This link is incomplete or damaged');
      expect(screen.queryByRole('button')).toBeNull();
    },
  );

  it('finds the position with high accuracy and a timeout, shows it with a maps link, and sends it on confirm', async () => {
    const getCurrentPosition = geolocationAnswering((success) => success(at(52.37022, 4.89517, 14.6)));
    fetchMock.mockResolvedValue(new Response('{}', { status: 202 }));
    renderAt(`/share-location/${token}`);
    await press('Share my location');
    expect(getCurrentPosition.mock.calls[0]![2]).toMatchObject({ enableHighAccuracy: true, timeout: 15_000 });
    expect(screen.getByRole('heading', { name: 'We found you, accurate to about 15 m.' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Open in maps/ })).toHaveAttribute(
      'href',
      'https://www.google.com/maps/search/?api=1&query=52.370220,4.895170',
    );
    await press('Confirm this location');
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeInTheDocument();
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({
      token,
      position: { latitude: 52.37022, longitude: 4.89517, accuracy: 14.6 },
    });
  });

  it('lets the recipient try again for a better position', async () => {
    let call = 0;
    geolocationAnswering((success) => success(call++ === 0 ? at(1, 1, 900) : at(1, 1, 8)));
    renderAt(`/share-location/${token}`);
    await press('Share my location');
    expect(screen.getByRole('heading', { name: /about 900 m/ })).toBeInTheDocument();
    await press('Try again');
    expect(screen.getByRole('heading', { name: /about 8 m/ })).toBeInTheDocument();
  });

  it.each([
    [1, 'Location access is blocked for this site'],
    [2, 'could not work out where you are'],
    [3, 'took too long'],
  ] as const)('explains geolocation error %i and offers the address instead', async (code, text) => {
    geolocationAnswering((_success, fail) => fail(failure(code)));
    renderAt(`/share-location/${token}`);
    await press('Share my location');
    expect(screen.getByRole('alert')).toHaveTextContent(text);
    await press('Type an address instead');
    expect(screen.getByLabelText('Delivery address')).toBeInTheDocument();
  });

  it('tells a browser without geolocation to type an address', async () => {
    renderAt(`/share-location/${token}`);
    await press('Share my location');
    expect(screen.getByRole('alert')).toHaveTextContent('This browser cannot share a location');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('sends a typed address, and asks for a full one first', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 202 }));
    renderAt(`/share-location/${token}`);
    await userEvent.click(screen.getByText('Type an address instead'));
    await userEvent.type(screen.getByLabelText('Delivery address'), 'x');
    await press('Confirm address');
    expect(screen.getByRole('alert')).toHaveTextContent('Enter the full delivery address.');
    expect(fetchMock).not.toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText('Delivery address'), ' 12 Canal Street, Amsterdam');
    await press('Confirm address');
    expect(await screen.findByText(/Your address has been shared/)).toBeInTheDocument();
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({
      token,
      address: 'x 12 Canal Street, Amsterdam',
    });
  });

  it('explains a refusal from the server, and retries after a network failure', async () => {
    geolocationAnswering((success) => success(at(1, 2, 10)));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    fetchMock
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(new Response('{}', { status: 400 }));
    renderAt(`/share-location/${token}`);
    await press('Share my location');
    await press('Confirm this location');
    expect(await screen.findByRole('alert')).toHaveTextContent('We could not reach our server');
    await press('Try again');
    expect(await screen.findByRole('alert')).toHaveTextContent('the link may have expired');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('before its scripts run, offers the address form and says the position needs JavaScript', () => {
    const html = renderToString(
      <StaticRouter location={`/share-location/${token}`}>
        <Routes>
          <Route path="/share-location/*" element={<ShareLocationPage />} />
        </Routes>
      </StaticRouter>,
    );
    document.body.innerHTML = html;
    expect(screen.getByRole('button', { name: 'Share my location' })).toBeDisabled();
    expect(screen.getByText(/Sharing your device’s position needs JavaScript/)).toBeInTheDocument();
    const form = screen.getByLabelText('Delivery address', { selector: 'textarea' }).closest('form')!;
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('action', '/api/share-location');
    expect(new FormData(form).get('token')).toBe(token);
    document.body.innerHTML = '';
  });

  it('once hydrated, the position button works and the note is gone', () => {
    renderAt(`/share-location/${token}`);
    expect(screen.getByRole('button', { name: 'Share my location' })).toBeEnabled();
    expect(screen.queryByText(/needs JavaScript/)).toBeNull();
  });

  it('shows the thanks after a native post of the address was saved', () => {
    renderAt(`/share-location/${token}`, { form: 'share-location', outcome: 'shared', address: '12 Canal Street' });
    expect(screen.getByRole('heading', { name: 'Thank you!' })).toBeInTheDocument();
    expect(screen.getByText('12 Canal Street')).toBeInTheDocument();
  });

  it('gives the address back, with the reason, after a native post was refused', () => {
    const returned = {
      form: 'share-location',
      outcome: 'refused',
      message: 'Enter the full delivery address.',
      address: '12',
    } as const;
    renderAt(`/share-location/${token}`, returned);
    expect(screen.getByLabelText('Delivery address')).toHaveValue('12');
    expect(screen.getByRole('alert')).toHaveTextContent('Enter the full delivery address.');
  });
});
