import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeletionRequestForm } from './deletion-request-form.tsx';

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

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
    expect(screen.getByLabelText('Full Name')).toBeRequired();
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
});
