import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeletionFormOutcome } from '@gift/content';
import { ActionDataContext } from '@gift/router';
import { DeletionRequestForm } from './deletion-request-form.tsx';

const returnedWith = (outcome: DeletionFormOutcome) => (
  <ActionDataContext value={outcome}>
    <DeletionRequestForm />
  </ActionDataContext>
);

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  // Pages rendered by hand (to hydrate them) are not Testing Library's to clean up.
  document.body.replaceChildren();
});

async function fillIn({ name = 'Ann Lee', email = 'ann@example.com', reason = 'Not using it' } = {}) {
  if (name) await userEvent.type(screen.getByLabelText('Full Name'), name);
  if (email) await userEvent.type(screen.getByLabelText('Email Address'), email);
  if (reason) await userEvent.type(screen.getByLabelText('Reason for Deleting'), reason);
}

const submit = () => userEvent.click(screen.getByRole('button', { name: 'Submit Request' }));
const status = () => screen.getByRole('status');

describe('DeletionRequestForm', () => {
  it('starts empty with an empty live status region', () => {
    render(<DeletionRequestForm />);
    expect(screen.getByLabelText('Full Name')).toHaveValue('');
    // Marked required for the browser, as spec section 5 says; the product's own check is the email's and the reason's.
    expect(screen.getByLabelText('Full Name')).toBeRequired();
    expect(screen.getByLabelText('Email Address')).not.toBeRequired();
    expect(screen.getByLabelText('Reason for Deleting')).not.toBeRequired();
    expect(screen.getByLabelText('Email Address')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Reason for Deleting')).toHaveAttribute('rows', '4');
    expect(status()).toHaveAttribute('aria-live', 'polite');
    expect(status()).toBeEmptyDOMElement();
  });

  it.each([
    ['the email', { email: '' }],
    ['the reason', { reason: '' }],
  ])('asks for all fields and sends nothing when %s is empty', async (_case, values) => {
    render(<DeletionRequestForm />);
    await fillIn(values);
    await submit();
    expect(status()).toHaveTextContent('Please fill in all fields.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('posts the three fields as JSON, then clears them and confirms', async () => {
    fetchMock.mockResolvedValue(new Response('{"reference":"DEL-AAAA-BBBB"}', { status: 202 }));
    render(<DeletionRequestForm />);
    await fillIn();
    await submit();
    expect(await screen.findByText('Your account deletion request has been submitted.')).toBeInTheDocument();
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/delete-account');
    expect(init?.method).toBe('POST');
    expect(new Headers(init?.headers).get('content-type')).toBe('application/json');
    expect(JSON.parse(String(init?.body))).toEqual({
      name: 'Ann Lee',
      email: 'ann@example.com',
      reason: 'Not using it',
    });
    for (const label of ['Full Name', 'Email Address', 'Reason for Deleting']) {
      expect(screen.getByLabelText(label)).toHaveValue('');
    }
  });

  it('keeps the fields and says something went wrong when the server answers 500', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 500 }));
    render(<DeletionRequestForm />);
    await fillIn();
    await submit();
    expect(await screen.findByText('Something went wrong. Please try again later.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email Address')).toHaveValue('ann@example.com');
    expect(screen.getByLabelText('Reason for Deleting')).toHaveValue('Not using it');
  });

  it('keeps the fields and says to try again in a moment when the server cannot store it just now (503)', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 503, headers: { 'retry-after': '5' } }));
    render(<DeletionRequestForm />);
    await fillIn();
    await submit();
    expect(
      await screen.findByText('We couldn’t save this just now: nothing was kept. Please try again in a moment.'),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Email Address')).toHaveValue('ann@example.com');
    expect(screen.getByLabelText('Reason for Deleting')).toHaveValue('Not using it');
  });

  it('keeps the fields, logs, and reports a server error when the network fails', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    render(<DeletionRequestForm />);
    await fillIn();
    await submit();
    expect(await screen.findByText('Server error. Please try again later.')).toBeInTheDocument();
    expect(log).toHaveBeenCalled();
    expect(screen.getByLabelText('Full Name')).toHaveValue('Ann Lee');
  });

  it('sends one request however often the button is pressed while it is in flight', async () => {
    let answer: (response: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    render(<DeletionRequestForm />);
    await fillIn();
    await submit();
    expect(screen.getByRole('button', { name: 'Submit Request' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Submit Request' }));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    answer(new Response('{}', { status: 202 }));
    expect(await screen.findByText('Your account deletion request has been submitted.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Submit Request' })).toBeEnabled();
  });

  it('keeps what was typed before hydration, and sends it once hydrated', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 202 }));
    const container = document.createElement('div');
    container.innerHTML = renderToString(<DeletionRequestForm />);
    document.body.append(container);
    const field = (name: string) => container.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
    field('name').value = 'Ann Lee';
    field('email').value = 'ann@example.com';
    field('reason').value = 'Typed while the page loaded';
    await act(async () => {
      hydrateRoot(container, <DeletionRequestForm />);
    });
    expect(field('email')).toHaveValue('ann@example.com');
    expect(field('reason')).toHaveValue('Typed while the page loaded');
    await userEvent.click(screen.getByRole('button', { name: 'Submit Request' }));
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({
      name: 'Ann Lee',
      email: 'ann@example.com',
      reason: 'Typed while the page loaded',
    });
  });

  it('keeps a reason edited before hydration, after a native post had given one back', async () => {
    const values = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Given back' };
    const outcome = { form: 'delete-account', outcome: 'failed', values } as const;
    const container = document.createElement('div');
    container.innerHTML = renderToString(returnedWith(outcome));
    document.body.append(container);
    const reason = container.querySelector('textarea')!;
    reason.value = 'Given back, then edited';
    await act(async () => {
      hydrateRoot(container, returnedWith(outcome));
    });
    expect(reason).toHaveValue('Given back, then edited');
    expect(screen.getByRole('status')).toHaveTextContent('Something went wrong. Please try again later.');
  });

  it('keeps what was typed when the browser renders the form afresh over the page instead of hydrating it', async () => {
    const container = document.createElement('div');
    container.innerHTML = renderToString(<DeletionRequestForm />);
    document.body.append(container);
    container.querySelector<HTMLInputElement>('[name="email"]')!.value = 'ann@example.com';
    const { createRoot } = await import('react-dom/client');
    await act(async () => createRoot(container).render(<DeletionRequestForm />));
    expect(container.querySelector('[name="email"]')).toHaveValue('ann@example.com');
  });

  it('shows what a native post came back with: the message and the fields as typed', () => {
    const values = { name: 'Ann Lee', email: 'ann@example.com', reason: '' };
    render(returnedWith({ form: 'delete-account', outcome: 'missing-fields', values }));
    expect(status()).toHaveTextContent('Please fill in all fields.');
    expect(screen.getByLabelText('Full Name')).toHaveValue('Ann Lee');
    expect(screen.getByLabelText('Email Address')).toHaveValue('ann@example.com');
  });

  it.each([
    [{ outcome: 'submitted' } as const, 'Your account deletion request has been submitted.'],
    [
      { outcome: 'failed', values: { name: 'A', email: 'a@b.co', reason: 'r' } } as const,
      'Something went wrong. Please try again later.',
    ],
    [
      {
        outcome: 'refused',
        message: 'Enter a valid email address.',
        values: { name: 'A', email: 'a@b', reason: 'r' },
      } as const,
      'Enter a valid email address.',
    ],
  ])('after a native post that came back %o, says so', (outcome, message) => {
    render(returnedWith({ form: 'delete-account', ...outcome }));
    expect(status()).toHaveTextContent(message);
  });

  it('empties the fields on success even when a native post had given them back', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 202 }));
    const values = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Not using it' };
    render(returnedWith({ form: 'delete-account', outcome: 'failed', values }));
    await submit();
    expect(await screen.findByText('Your account deletion request has been submitted.')).toBeInTheDocument();
    for (const label of ['Full Name', 'Email Address', 'Reason for Deleting']) {
      expect(screen.getByLabelText(label)).toHaveValue('');
    }
  });
});
